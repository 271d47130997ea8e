/**
 * The real backend's stand-in for kubelets (kwok) finishes graceful deletions only
 * (test/cluster/manifests/kwok-guard.yaml): kwok deletes by name with no UID precondition, so a
 * stale job of a pod that is gone could delete the live pod that replaced it (seen once in
 * kube-apiserver's audit log under load). Its status patches carry the pod's UID as a kubelet's
 * do (test/cluster/kwok-stages, test/unit/cluster/kwok-stages.test.ts): the same stale job's
 * status patch, rendered for the pod that is gone, is refused on the live one (CI: a stale
 * pod-delete stage marked a recreated pet's containers terminated, and it stayed unready).
 * Real backend only: the embedded kubelet writes by UID itself.
 */
import { join } from "node:path";
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  backendFromEnv,
  eventually,
  realClusterDir,
  startTestCluster,
  type TestCluster,
} from "../support/cluster.js";

const real = backendFromEnv() === "real";
let cluster: TestCluster;
let namespace: string;
let admin: CoreV1Api;
let kwok: CoreV1Api;

beforeAll(async () => {
  if (!real) return;
  cluster = await startTestCluster();
  namespace = await cluster.namespace("kwok-guard");
  admin = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const kc = new KubeConfig();
  kc.loadFromFile(join(realClusterDir(), "kubeconfig-kwok"));
  kwok = kc.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
});

const running = async (name: string): Promise<V1Pod | undefined> => {
  const pod = await admin.readNamespacedPod({ name, namespace });
  return pod.status?.phase === "Running" ? pod : undefined;
};

describe.skipIf(!real)("kwok guard", () => {
  it("kwok may not delete a live pod; it still finishes a graceful deletion", async () => {
    const pod = { metadata: { name: "live" }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } };
    await admin.createNamespacedPod({ namespace, body: pod });
    await eventually("pod live Running", () => running("live"), 30_000);

    const refused = await kwok
      .deleteNamespacedPod({ name: "live", namespace, body: { gracePeriodSeconds: 0 } })
      .then(
        () => undefined,
        (err: unknown) => err as { code?: number; body?: unknown },
      );
    expect(refused?.code).toBe(422);
    expect(String(refused?.body)).toMatch(/kwok finishes graceful deletions only/);
    expect(
      (await admin.readNamespacedPod({ name: "live", namespace })).metadata?.deletionTimestamp,
    ).toBeUndefined();

    // A user's graceful delete: kwok marks the containers terminated and removes the pod.
    await admin.deleteNamespacedPod({ name: "live", namespace });
    await eventually(
      "pod live gone",
      async () => ((await admin.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined),
      30_000,
    );
  });

  it("a status patch kwok rendered for an earlier pod of the same name is refused on the live one", async () => {
    const pod = { metadata: { name: "again" }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } };
    await admin.createNamespacedPod({ namespace, body: pod });
    const first = await eventually("pod again Running", () => running("again"), 30_000);
    await admin.deleteNamespacedPod({ name: "again", namespace });
    await eventually(
      "the first pod again gone",
      async () => ((await admin.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined),
      30_000,
    );
    await admin.createNamespacedPod({ namespace, body: pod });
    const live = await eventually("the second pod again Running", () => running("again"), 30_000);
    expect(live.metadata?.uid).not.toBe(first.metadata?.uid);

    // What kwok's pod-delete stage sends for the first pod: its uid, containers terminated.
    const stale = (uid: string | undefined) => ({
      metadata: { uid },
      status: {
        conditions: [{ type: "Ready", status: "False", reason: "PodCompleted" }],
        containerStatuses: [
          {
            name: "app",
            image: "nginx:1.27",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: "Completed" } },
          },
        ],
      },
    });
    const refused = await kwok
      .patchNamespacedPodStatus(
        { name: "again", namespace, body: stale(first.metadata?.uid) },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      )
      .then(
        () => undefined,
        (err: unknown) => err as { code?: number; body?: unknown },
      );
    expect(refused?.code).toBe(422);
    expect(String(refused?.body)).toMatch(/metadata\.uid/);
    const after = await admin.readNamespacedPod({ name: "again", namespace });
    expect(after.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");

    // The precondition is what refused it: the same patch with the live pod's uid is taken.
    const taken = await kwok.patchNamespacedPodStatus(
      { name: "again", namespace, body: stale(live.metadata?.uid) },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    expect(taken.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
  });
});
