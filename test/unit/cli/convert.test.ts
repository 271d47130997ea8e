import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import { convertStatefulSet } from "../../../src/cli/plugin/migrate/convert.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { statefulSet } from "./statefulset-fixtures.js";

const sts = (spec: Record<string, unknown> = {}) => statefulSet("nginx:1.27", spec);

describe("convertStatefulSet", () => {
  it("issue 31 item 4: never copies petset.dev/* bookkeeping labels or annotations into the manifest", () => {
    const released = sts();
    const metadata = released.metadata as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    metadata.annotations = {
      ...metadata.annotations,
      "petset.dev/released-from": "petset/web",
      "petset.dev/release-snapshot": '{"statefulSetUid":"u","pods":{}}',
      "petset.dev/release-update-strategy": '{"type":"OnDelete"}',
    };
    metadata.labels = { ...metadata.labels, "petset.dev/petset": "web" };
    const out = convertStatefulSet(released) as { metadata: Record<string, unknown> };
    expect(out.metadata).toEqual({
      name: "web",
      namespace: "default",
      labels: { app: "web" },
      annotations: { team: "storage" },
    });
  });

  it("keeps the overlapping fields, drops status and server-set metadata", () => {
    const out = convertStatefulSet(sts({ ordinals: { start: 5 }, minReadySeconds: 10 })) as {
      apiVersion: string;
      kind: string;
      metadata: Record<string, unknown>;
      spec: Record<string, unknown>;
      status?: unknown;
    };
    expect(out.apiVersion).toBe("petset.dev/v1alpha1");
    expect(out.kind).toBe("PetSet");
    expect(out.metadata).toEqual({
      name: "web",
      namespace: "default",
      labels: { app: "web" },
      annotations: { team: "storage" },
    });
    expect(out.status).toBeUndefined();
    expect(out.spec.ordinals).toEqual({ start: 5 });
    expect(out.spec.minReadySeconds).toBe(10);
    expect(out.spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0 } });
    expect(out.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: "Retain",
      whenScaled: "Retain",
    });
    const template = out.spec.template as { metadata: Record<string, unknown> };
    expect(template.metadata).toEqual({ labels: { app: "web" } });
    const [claim] = out.spec.volumeClaimTemplates as Record<string, unknown>[];
    expect(claim?.status).toBeUndefined();
    expect(claim?.metadata).toEqual({ name: "data" });
  });

  it.each([
    [{ kind: "Deployment" }, 'statefulset "web": kind: is "Deployment", expected StatefulSet'],
    [{ apiVersion: "apps/v1beta2" }, 'statefulset "web": apiVersion: is "apps/v1beta2", expected apps/v1'],
  ])("refuses a manifest that is not an apps/v1 StatefulSet (%o)", (patch, message) => {
    expect(() => convertStatefulSet({ ...sts(), ...patch })).toThrow(message);
  });

  it.each([
    [{ selector: {} }, "spec.selector: is empty"],
    [
      { selector: { matchLabels: { app: "other" } } },
      "spec.selector: does not match spec.template.metadata.labels",
    ],
    [
      { podManagementPolicy: "Burst" },
      'spec.podManagementPolicy: "Burst" is not one of OrderedReady, Parallel',
    ],
    [{ updateStrategy: { type: "Canary" } }, "spec.updateStrategy.type"],
    [
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } } },
      "spec.updateStrategy.rollingUpdate.maxUnavailable: 0",
    ],
    [
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { surge: 1 } } },
      "spec.updateStrategy.rollingUpdate.surge: has no PetSet equivalent",
    ],
    [
      { persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep" } },
      "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
    ],
    [{ ordinals: { start: 1, step: 2 } }, "spec.ordinals.step: has no PetSet equivalent"],
    [{ futureField: true }, "spec.futureField: has no PetSet equivalent"],
    [
      { volumeClaimTemplates: [{ metadata: { name: "a" } }, { metadata: { name: "a" } }] },
      'spec.volumeClaimTemplates[1].metadata.name: "a" is used twice',
    ],
  ])("refuses what a PetSet cannot express (%o)", (spec, message) => {
    expect(() => convertStatefulSet(sts(spec))).toThrow(message);
  });

  it("maps updateStrategy OnDelete and maxUnavailable percentages as written", () => {
    const out = convertStatefulSet(
      sts({
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "50%", partition: 2 } },
      }),
    );
    expect((out.spec as Record<string, unknown>).updateStrategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: "50%", partition: 2 },
    });
    const onDelete = convertStatefulSet(sts({ updateStrategy: { type: "OnDelete" } }));
    expect((onDelete.spec as Record<string, unknown>).updateStrategy).toEqual({ type: "OnDelete" });
  });
});

describe("kubectl petset convert", () => {
  async function run(args: string[], input: string) {
    const out: string[] = [];
    const err: string[] = [];
    const { mkdtemp, rm, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "convert-"));
    const file = join(dir, "sts.yaml");
    await writeFile(file, input);
    const deps: PluginDeps = {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: false },
        stderr: { write: (s) => void err.push(s), isTTY: false },
      },
      clock: { now: () => 0 },
      connect: () => {
        throw new Error("convert needs no cluster");
      },
    };
    try {
      const code = await runPlugin(["convert", "-f", file, ...args], deps);
      return { code, stdout: out.join(""), stderr: err.join("") };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("prints the PetSet manifest of each StatefulSet document as YAML", async () => {
    const { stringify } = await import("yaml");
    const two = `${stringify(sts())}---\n${stringify({ ...sts(), metadata: { name: "db" } })}`;
    const result = await run([], two);
    expect(result.code).toBe(0);
    const docs = result.stdout.split("---\n").map((d) => parse(d));
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(["PetSet/web", "PetSet/db"]);
  });

  it("prints JSON with -o json and refuses other kinds in one line naming the field", async () => {
    const json = await run(["-o", "json"], JSON.stringify(sts()));
    expect(JSON.parse(json.stdout).kind).toBe("PetSet");
    const bad = await run([], JSON.stringify({ ...sts(), kind: "Deployment" }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('error: statefulset "web": kind: is "Deployment", expected StatefulSet\n');
  });
});
