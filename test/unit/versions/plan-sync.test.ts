import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import {
  Annotations,
  API_VERSION,
  Labels,
  type PetSet,
  type PetSetVersion,
  parsePetSetVersion,
} from "../../../src/api/index.js";
import { hashContent } from "../../../src/versions/hash.js";
import { PetSetIdentityError, planVersionSync } from "../../../src/versions/plan-sync.js";
import { content, PETSET_UID, petSet, version } from "./fixtures.js";

function created(plan: ReturnType<typeof planVersionSync>): PetSetVersion {
  if (plan.action !== "create") throw new Error(`expected create, got ${plan.action}`);
  return plan.version;
}

describe("planVersionSync", () => {
  it("creates v1, complete and ready to POST, for a new PetSet", () => {
    const ps = petSet({ image: "nginx:1.27", generation: 1 });
    const v = created(planVersionSync(ps, []));
    const hash = hashContent(content("nginx:1.27"));
    expect(v).toEqual({
      apiVersion: API_VERSION,
      kind: "PetSetVersion",
      metadata: {
        name: "web-v1",
        namespace: "default",
        labels: { [Labels.petSet]: "web", [Labels.version]: "1", [Labels.hash]: hash },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: "PetSet",
            name: "web",
            uid: PETSET_UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        petSet: "web",
        version: 1,
        generation: 1,
        hash,
        template: ps.spec.template,
        volumeClaimTemplates: [],
        changeCause: "initial version",
        delta: [],
      },
    });
    expect(() => parsePetSetVersion(v)).not.toThrow();
    expect(v.spec.template).not.toBe(ps.spec.template);
  });

  it.each<[string, PetSet, PetSetVersion[]]>([
    ["same manifest applied again", petSet({ image: "nginx:1.2" }), [version(1, "nginx:1.1"), version(2)]],
    [
      "server added defaults",
      petSet({
        spec: {
          template: {
            metadata: { labels: { app: "web" }, creationTimestamp: null },
            spec: {
              containers: [
                { name: "app", image: "nginx:1.2", imagePullPolicy: "IfNotPresent", resources: {} },
              ],
              dnsPolicy: "ClusterFirst",
            },
          },
        },
      }),
      [version(2)],
    ],
    [
      "only replicas changed",
      petSet({ image: "nginx:1.2", spec: { replicas: 7, paused: true } }),
      [version(2)],
    ],
    [
      "PetSet being deleted",
      petSet({ image: "other", metadata: { deletionTimestamp: "2025-01-01T00:00:00Z" } }),
      [version(2)],
    ],
  ])("does nothing when %s", (_name, ps, versions) => {
    const plan = planVersionSync(ps, versions);
    expect(plan.action).toBe("none");
    if (plan.action === "none") expect(plan.newest?.metadata.name).toBe("web-v2");
  });

  it("creates the next number when the content differs from the newest", () => {
    const v = created(
      planVersionSync(petSet({ image: "nginx:1.3", generation: 5 }), [version(1), version(2)]),
    );
    expect(v.metadata.name).toBe("web-v3");
    expect(v.spec).toMatchObject({
      version: 3,
      generation: 5,
      changeCause: "image app: nginx:1.2 -> nginx:1.3",
    });
    expect(v.spec.rollbackOf).toBeUndefined();
    expect(v.spec.delta).toEqual([
      { op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.3" },
    ]);
  });

  it.each<[string, number[], number]>([
    ["equal to v1", [1, 2], 1],
    ["equal to v1 and v3: the newest older one", [1, 2, 3, 4], 3],
  ])("sets rollbackOf when the content is %s", (_name, numbers, rollbackOf) => {
    const image = (n: number) => (n % 2 === 1 ? "nginx:1.1" : `nginx:1.${n}`);
    const versions = numbers.map((n) => version(n, image(n)));
    const v = created(planVersionSync(petSet({ image: "nginx:1.1" }), versions));
    expect(v.spec.version).toBe(numbers.length + 1);
    expect(v.spec.rollbackOf).toBe(rollbackOf);
    expect(v.metadata.labels?.[Labels.hash]).toBe(versions[0]?.spec.hash);
  });

  it("numbers above status numbers the cache does not have yet", () => {
    const v = created(planVersionSync(petSet({ image: "new", status: { updateVersion: 5 } }), [version(4)]));
    expect(v.metadata.name).toBe("web-v6");
  });

  it("ignores leftovers of a deleted PetSet of the same name, but never collides with their names", () => {
    const leftovers = [1, 2].map((n) => version(n, "nginx:1.27", { ownerUid: "uid-of-deleted-web" }));
    const v = created(planVersionSync(petSet({ image: "nginx:1.27" }), leftovers));
    expect(v.metadata.name).toBe("web-v3");
    expect(v.spec.changeCause).toBe("initial version");
    expect(v.spec.rollbackOf).toBeUndefined();
    expect(v.spec.delta).toEqual([]);
  });

  it("adopts orphans before comparing", () => {
    const orphans = [version(3, "a", { ownerUid: null }), version(2, "b", { ownerUid: null })];
    expect(planVersionSync(petSet(), [version(1), ...orphans])).toEqual({
      action: "adopt",
      names: ["web-v2", "web-v3"],
    });
  });

  it("takes the change-cause annotation when it is new", () => {
    const ps = petSet({ image: "nginx:1.3", annotations: { [Annotations.changeCause]: "CVE-2025-1 fix" } });
    const v = created(planVersionSync(ps, [version(2)]));
    expect(v.spec.changeCause).toBe("CVE-2025-1 fix");
    expect(v.metadata.annotations).toEqual({ [Annotations.changeCause]: "CVE-2025-1 fix" });
  });

  it("derives the cause when the annotation is the one the previous version was made under", () => {
    const cause = { [Annotations.changeCause]: "CVE-2025-1 fix" };
    const ps = petSet({ image: "nginx:1.3", annotations: cause });
    const v = created(planVersionSync(ps, [version(2, "nginx:1.2", { annotations: cause })]));
    expect(v.spec.changeCause).toBe("image app: nginx:1.2 -> nginx:1.3");
  });

  it("records the field manager that changed the template", () => {
    const managedFields = [
      {
        manager: "kubectl-client-side-apply",
        operation: "Update",
        time: "2025-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:template": {} } },
      },
    ];
    const v = created(planVersionSync(petSet({ image: "x", metadata: { managedFields } }), [version(1)]));
    expect(v.spec.changedBy).toBe("kubectl-client-side-apply");
  });

  it("gives a delta that turns the previous content into this one", () => {
    const ps = petSet({
      spec: {
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "app", image: "nginx:1.3" }] },
        },
        volumeClaimTemplates: [{ metadata: { name: "data" } }],
      },
    });
    const previous = version(2);
    const v = created(planVersionSync(ps, [previous]));
    const prevContent = {
      template: previous.spec.template,
      volumeClaimTemplates: previous.spec.volumeClaimTemplates,
    };
    const applied = jsonPatch.applyPatch(
      structuredClone(prevContent),
      v.spec.delta as jsonPatch.Operation[],
    ).newDocument;
    expect(applied).toEqual({ template: v.spec.template, volumeClaimTemplates: v.spec.volumeClaimTemplates });
  });

  it("does not mutate its inputs", () => {
    const ps = petSet({ image: "nginx:1.3" });
    const versions = [version(1), version(2)];
    const before = structuredClone({ ps, versions });
    planVersionSync(ps, versions);
    expect({ ps, versions }).toEqual(before);
  });

  it.each(["name", "namespace", "uid"] as const)("refuses a PetSet without metadata.%s", (field) => {
    const ps = petSet();
    ps.metadata[field] = undefined;
    expect(() => planVersionSync(ps, [])).toThrow(PetSetIdentityError);
  });
});
