/**
 * Issue 26, the storage simulation on both backends with the same code: StorageClasses
 * `standard` (default, expandable) and `fixed-size`; kube's admission on claim updates (real on
 * kube-apiserver, emulated on the embedded server); and the simulated resizer (the embedded
 * kubelet's, or the process test/cluster/up.sh starts) moving a grown claim's status in kube's
 * order, with the `resize.petset.dev/fail` and `resize.petset.dev/hang` hooks. One namespace,
 * all claims created up front and resized at once.
 */
import {
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1PersistentVolumeClaim,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiStatus } from "../../src/controller/api-errors.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";
import { TEST_MS, WAIT_MS } from "./rollout-support.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;
/** Per claim, the distinct resize states its watch showed, in order. */
const seen = new Map<string, string[]>();
let stopWatch: (() => void) | undefined;

const CLAIMS: Record<string, { cls?: string; annotations?: Record<string, string> }> = {
  grow: {},
  fixed: { cls: "fixed-size" },
  "fail-controller": { annotations: { "resize.petset.dev/fail": "controller" } },
  "fail-node": { annotations: { "resize.petset.dev/fail": "node" } },
  hang: { annotations: { "resize.petset.dev/hang": "controller" } },
};

/** A claim's resize state as one string: resize status, resize conditions, capacity. */
function stateOf(c: V1PersistentVolumeClaim): string {
  const s = c.status;
  const conditions = (s?.conditions ?? []).map((k) => k.type).join(",");
  return `${s?.allocatedResourceStatuses?.storage ?? "-"}|${conditions}|${s?.capacity?.storage ?? "-"}`;
}

async function read(name: string): Promise<V1PersistentVolumeClaim> {
  return core.readNamespacedPersistentVolumeClaim({ name, namespace });
}

async function resize(name: string, storage: string): Promise<V1PersistentVolumeClaim> {
  return core.patchNamespacedPersistentVolumeClaim(
    { name, namespace, body: { spec: { resources: { requests: { storage } } } } },
    mergePatch,
  );
}

async function refusal(p: Promise<unknown>): Promise<{ code?: number; message?: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  const s = apiStatus(err);
  if (!s) throw new Error(`expected the API server to refuse, got ${String(err)}`);
  return { code: s.code, message: s.message };
}

const waitFor = (what: string, name: string, ok: (c: V1PersistentVolumeClaim) => boolean) =>
  eventually(`${name}: ${what}`, async () => ((c) => (ok(c) ? c : undefined))(await read(name)), WAIT_MS);

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.namespace("claim-resize");
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const req = await new Watch(cluster.kubeConfig).watch(
    `/api/v1/namespaces/${namespace}/persistentvolumeclaims`,
    {},
    (_type, obj: V1PersistentVolumeClaim) => {
      const name = obj.metadata?.name ?? "";
      const states = seen.get(name) ?? [];
      if (states.at(-1) !== stateOf(obj)) states.push(stateOf(obj));
      seen.set(name, states);
    },
    () => {},
  );
  stopWatch = () => req.abort();
  await Promise.all(
    Object.entries(CLAIMS).map(([name, c]) =>
      core.createNamespacedPersistentVolumeClaim({
        namespace,
        body: {
          metadata: { name, annotations: c.annotations ?? {} },
          spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: "1Gi" } },
            ...(c.cls ? { storageClassName: c.cls } : {}),
          },
        },
      }),
    ),
  );
  await Promise.all(Object.keys(CLAIMS).map((n) => waitFor("Bound", n, (c) => c.status?.phase === "Bound")));
}, TEST_MS);

afterAll(async () => {
  stopWatch?.();
  await cluster?.stop();
});

describe("issue 26: storage simulation (StorageClasses, resize admission, simulated resizer)", () => {
  it("both backends have the classes standard (default, expandable) and fixed-size", async () => {
    const storage = cluster.kubeConfig.makeApiClient(StorageV1Api);
    const [standard, fixed] = await Promise.all([
      storage.readStorageClass({ name: "standard" }),
      storage.readStorageClass({ name: "fixed-size" }),
    ]);
    expect(standard.metadata?.annotations?.["storageclass.kubernetes.io/is-default-class"]).toBe("true");
    expect(standard.allowVolumeExpansion).toBe(true);
    expect(fixed.allowVolumeExpansion ?? false).toBe(false);
    expect((await read("grow")).spec?.storageClassName).toBe("standard");
  });

  it(
    "a grown claim goes through ControllerResizeInProgress, the PV's capacity, NodeResizePending, then status.capacity; failing and hanging resizes stop where their hook says",
    async () => {
      await Promise.all(["grow", "fail-controller", "fail-node", "hang"].map((n) => resize(n, "2Gi")));
      const grown = await waitFor("capacity 2Gi", "grow", (c) => c.status?.capacity?.storage === "2Gi");
      expect(grown.status?.allocatedResourceStatuses).toBeUndefined();
      expect(grown.status?.conditions ?? []).toEqual([]);
      expect(grown.status?.allocatedResources?.storage).toBe("2Gi");
      // The watch delivers the last state a little after the read above.
      const states = await eventually(
        "the watch to show grow's final state",
        () => ((s) => (s?.at(-1) === "-||2Gi" ? s : undefined))(seen.get("grow")),
        WAIT_MS,
      );
      expect(states).toEqual(
        expect.arrayContaining([
          "ControllerResizeInProgress|Resizing|1Gi",
          "NodeResizePending|FileSystemResizePending|1Gi",
        ]),
      );
      expect(states.indexOf("ControllerResizeInProgress|Resizing|1Gi")).toBeLessThan(
        states.indexOf("NodeResizePending|FileSystemResizePending|1Gi"),
      );
      const pv = await core.readPersistentVolume({ name: grown.spec?.volumeName ?? "" });
      expect(pv.spec?.capacity?.storage).toBe("2Gi");

      const failed = await waitFor(
        "ControllerResizeInfeasible",
        "fail-controller",
        (c) => c.status?.allocatedResourceStatuses?.storage === "ControllerResizeInfeasible",
      );
      expect(failed.status?.conditions?.map((k) => k.type)).toEqual(["ControllerResizeError"]);
      expect(failed.status?.capacity?.storage).toBe("1Gi");
      // The resizer records a Warning Event, as the external-resizer does.
      await eventually(
        "a Warning VolumeResizeFailed Event on fail-controller",
        async () =>
          (
            await core.listNamespacedEvent({
              namespace,
              fieldSelector: "involvedObject.name=fail-controller,reason=VolumeResizeFailed,type=Warning",
            })
          ).items[0],
        WAIT_MS,
      );
      const nodeFailed = await waitFor(
        "NodeResizeInfeasible",
        "fail-node",
        (c) => c.status?.allocatedResourceStatuses?.storage === "NodeResizeInfeasible",
      );
      expect(nodeFailed.status?.conditions?.map((k) => k.type)).toEqual(["NodeResizeError"]);
      // The resizer handled "hang" as it did "grow", which has finished: "hang" stays put.
      const hung = await read("hang");
      expect(stateOf(hung)).toBe("ControllerResizeInProgress|Resizing|1Gi");

      // Removing the hook lets the failed resize finish.
      await core.patchNamespacedPersistentVolumeClaim(
        {
          name: "fail-controller",
          namespace,
          body: { metadata: { annotations: { "resize.petset.dev/fail": null } } },
        },
        mergePatch,
      );
      await waitFor(
        "capacity 2Gi after the hook is removed",
        "fail-controller",
        (c) => c.status?.capacity?.storage === "2Gi",
      );
    },
    TEST_MS,
  );

  it("a shrink to status.capacity is refused with kube's message", async () => {
    await waitFor("capacity 2Gi", "grow", (c) => c.status?.capacity?.storage === "2Gi");
    expect(await refusal(resize("grow", "1Gi"))).toEqual({
      code: 422,
      message:
        'PersistentVolumeClaim "grow" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    });
  });

  it("growing a claim of a class without allowVolumeExpansion is refused with kube's message", async () => {
    expect(await refusal(resize("fixed", "2Gi"))).toEqual({
      code: 403,
      message:
        'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    });
  });
});
