import { describe, expect, it } from "vitest";
import { API_VERSION, Labels } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import type { Pod } from "../../../src/cli/plugin/migrate/objects.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { petSet } from "./fixtures.js";

function petPod(ordinal: number, version: number): Pod {
  return {
    metadata: {
      name: `web-${ordinal}`,
      uid: `uid-pod-${ordinal}`,
      resourceVersion: String(30 + ordinal),
      labels: {
        app: "web",
        [Labels.petSet]: "web",
        [Labels.version]: String(version),
        [Labels.podIndex]: String(ordinal),
      },
      ownerReferences: [
        { apiVersion: API_VERSION, kind: "PetSet", name: "web", uid: "ps-uid", controller: true },
      ],
    },
    status: {
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [{ name: "app", restartCount: 1 }],
    },
  };
}

function setup(podVersions = [3, 3, 3]) {
  const api = new FakePetSetApi();
  const ps = petSet({ status: { updateVersion: 3, currentVersion: 3, replicas: 3 } });
  api.put({ ...ps, metadata: { ...ps.metadata, uid: "ps-uid" }, spec: { ...ps.spec, replicas: 3 } });
  api.podObjects = podVersions.map((v, i) => petPod(i, v));
  // The garbage collector and the StatefulSet controller, at once.
  api.onPetSetDeleted = (name) => {
    const sts = api.statefulSets.get(name);
    if (sts === undefined) return;
    sts.status = {
      updateRevision: "web-abc",
      currentRevision: "web-abc",
      readyReplicas: 3,
      observedGeneration: 1,
    };
    api.podObjects = api.podObjects.map((p) => ({
      ...p,
      metadata: {
        ...p.metadata,
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "StatefulSet", name, uid: sts.metadata.uid ?? "", controller: true },
        ],
      },
    }));
  };
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const deps: PluginDeps = {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: false },
        stderr: { write: (s) => void err.push(s), isTTY: false },
      },
      clock: { now: () => 0 },
      connect: () => api,
    };
    return { code: await runPlugin(args, deps), stdout: out.join(""), stderr: err.join("") };
  };
  return { api, run };
}

describe("kubectl petset release", () => {
  it("creates the StatefulSet OnDelete, orphans the PetSet, relabels the pods, restores the strategy", async () => {
    const { api, run } = setup();
    const result = await run("release", "web");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(api.writes).toEqual([
      "create statefulset web",
      "delete petset web orphan",
      "patch pod web-0",
      "patch pod web-1",
      "patch pod web-2",
      "patch statefulset web",
      "patch statefulset web",
    ]);
    const sts = api.statefulSets.get("web");
    // issue 31 item 4: no bookkeeping left behind for `convert` to copy into Git.
    expect(Object.keys(sts?.metadata.annotations ?? {}).filter((k) => k.startsWith("petset.dev/"))).toEqual(
      [],
    );
    expect(sts?.spec).toMatchObject({
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
    });
    expect(api.podObjects[0]?.metadata.labels).toEqual({ app: "web", "controller-revision-hash": "web-abc" });
    expect(result.stdout).toContain(
      "petset.petset.dev/web released to statefulset.apps/web: no pod restarted",
    );
  });

  // Seen on kube-apiserver (CI): the StatefulSet controller wrote web-1 between the listing
  // and the relabel, and release failed with the 409 instead of reading the pod again.
  it("a pod written between its listing and its relabel (409) is read again and relabelled", async () => {
    const { api, run } = setup();
    const patch = api.patchPodMetadata.bind(api);
    let raced = false;
    api.patchPodMetadata = async (name, metadata, resourceVersion) => {
      if (name === "web-1" && !raced) {
        raced = true;
        api.podObjects = api.podObjects.map((p) =>
          p.metadata.name === "web-1" ? { ...p, metadata: { ...p.metadata, resourceVersion: "999" } } : p,
        );
      }
      return patch(name, metadata, resourceVersion);
    };
    const result = await run("release", "web");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(raced).toBe(true);
    expect(api.podObjects[1]?.metadata.labels).toEqual({ app: "web", "controller-revision-hash": "web-abc" });
    expect(result.stdout).toContain("pod/web-1 labelled (revision web-abc)");
  });

  it("refuses while pods run an older version, naming the pod and the label", async () => {
    const { api, run } = setup([3, 2, 3]);
    const result = await run("release", "web");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error: cannot release: pod web-1 runs version 2 (label petset.dev/version), not the update version 3 (status.updateVersion): let the rollout finish first\n",
    );
    expect(api.writes).toEqual([]);
  });

  it("issue 28: refuses a PetSet that skips ordinals (spec.reserveOrdinals), naming the field", async () => {
    const { api, run } = setup();
    const ps = await api.getPetSet("web");
    api.put({ ...ps, spec: { ...ps.spec, reserveOrdinals: [1] } });
    const result = await run("release", "web");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: cannot release: petset "web" skips ordinals \(spec.reserveOrdinals\): a StatefulSet cannot/,
    );
    expect(api.writes).toEqual([]);
  });
});
