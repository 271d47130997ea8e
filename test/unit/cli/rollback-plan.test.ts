import { describe, expect, it } from "vitest";
import { PluginError, VersionNotFoundError } from "../../../src/cli/plugin/errors.js";
import { planRollback } from "../../../src/cli/plugin/rollback-plan.js";
import { parseVersionRef, versionsOf } from "../../../src/cli/plugin/version-select.js";
import { history, petSet, template, version } from "./fixtures.js";

const settled = (n: number, image: string, annotations: Record<string, string> = {}) =>
  petSet({ image, annotations, status: { observedGeneration: 5, currentVersion: n, updateVersion: n } });

describe("planRollback", () => {
  it("defaults to the newest older version whose hash differs from the update version's", () => {
    // update version 4 (nginx:1.26) equals version 2; the previous distinct one is 3 (1.27).
    const plan = planRollback(settled(4, "nginx:1.26"), history(), undefined);
    expect(plan.kind).toBe("patch");
    expect(plan.target.spec.version).toBe(3);
  });

  it("skips over older versions with the update version's content", () => {
    const versions = [...history(), version({ n: 5, image: "nginx:1.27", created: "2025-06-01T11:59:00Z" })];
    // update 5 = 1.27 = version 3; newest older distinct is 4 (1.26).
    expect(planRollback(settled(5, "nginx:1.27"), versions, undefined).target.spec.version).toBe(4);
  });

  it("patches template and volumeClaimTemplates to the target, deletes extra keys, sets change-cause", () => {
    const plan = planRollback(
      settled(3, "nginx:1.27", { "petset.dev/restartedAt": "2025-06-01T10:00:00Z" }),
      history(),
      1,
    );
    expect(plan).toMatchObject({
      kind: "patch",
      target: { spec: { version: 1 } },
      from: { spec: { version: 3 } },
    });
    if (plan.kind !== "patch") return;
    expect(plan.patch).toEqual({
      metadata: { annotations: { "kubernetes.io/change-cause": "rollback to version 1" } },
      spec: {
        template: {
          metadata: { annotations: null },
          spec: { containers: template("nginx:1.25").spec.containers },
        },
        volumeClaimTemplates: [],
      },
    });
  });

  it("says unchanged when the spec already has the target's content", () => {
    expect(planRollback(settled(3, "nginx:1.27"), history(), 3).kind).toBe("unchanged");
  });

  it("explains a collected version, a future one and a PetSet without history", () => {
    const versions = history().slice(2); // 1 and 2 were garbage-collected
    expect(() => planRollback(settled(4, "nginx:1.26"), versions, 1)).toThrow(
      'version 1 of petset "web" not found: it may have been garbage-collected; kubectl petset history web lists the versions kept',
    );
    expect(() => planRollback(settled(4, "nginx:1.26"), versions, 9)).toThrow(
      /does not exist: the newest is 4/,
    );
    expect(() => planRollback(settled(4, "nginx:1.26"), versions, 1)).toThrow(VersionNotFoundError);
    const none = petSet({ status: {} });
    expect(() => planRollback(none, [], undefined)).toThrow(/no recorded versions/);
  });

  it("refuses a default rollback when every older version has the same content", () => {
    const same = [
      version({ n: 1, image: "a:1", created: "2025-06-01T00:00:00Z" }),
      version({ n: 2, image: "a:1", created: "2025-06-01T01:00:00Z" }),
    ];
    const err = (() => {
      try {
        planRollback(settled(2, "a:1"), same, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PluginError);
    expect((err as PluginError).reason).toBe("NoRollbackTarget");
  });
});

describe("versionsOf", () => {
  it("keeps owned versions and labelled orphans, drops another PetSet's leftovers, sorts by number", () => {
    const [v1, v2, v3] = history();
    const leftover = version({ n: 7, image: "x", created: "2025-01-01T00:00:00Z", owner: "another-uid" });
    const orphan = { ...v2!, metadata: { ...v2!.metadata, ownerReferences: [] } };
    expect(versionsOf(petSet(), [v3!, leftover, orphan, v1!]).map((v) => v.spec.version)).toEqual([1, 2, 3]);
  });
});

describe("parseVersionRef", () => {
  it.each([
    ["3", 3],
    ["v3", 3],
    ["web-v12", 12],
    [" 4 ", 4],
  ])("%j -> %i", (ref, n) => {
    expect(parseVersionRef(ref, "web", "--to-version")).toBe(n);
  });

  it.each(["0", "three", "v", "db-v3", "-1", "3.5"])("rejects %j naming the flag", (ref) => {
    expect(() => parseVersionRef(ref, "web", "--to-version")).toThrow(
      /^--to-version: ".*" is not a version of petset "web"/,
    );
  });
});
