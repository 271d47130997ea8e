/**
 * The real backend's stand-in for kubelets (kwok) finishes graceful deletions only
 * (test/cluster/manifests/kwok-guard.yaml): kwok deletes by name with no UID precondition, so a
 * stale job of a pod that is gone could delete the live pod that replaced it (seen once in
 * kube-apiserver's audit log under load). Real backend only: the embedded kubelet deletes by
 * UID itself.
 */
import { join } from "node:path";
import { CoreV1Api, KubeConfig, type V1Pod } from "@kubernetes/client-node";
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
});
