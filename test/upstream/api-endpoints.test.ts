/**
 * Upstream [StatefulSetBasic] API cases (k8s.io/kubernetes v1.33.5
 * test/e2e/apps/statefulset.go): the scale subresource, list/patch/delete of a collection and
 * the status endpoints, with PetSets, at once in one namespace with one controller.
 * docs/upstream-conformance.md lists what differs.
 */
import { PatchStrategy, setHeaderOptions, Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, PETSET_PLURAL, type PetSet, VERSION } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  createPetSet,
  getPetSet,
  newPetSet,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  WAIT_MS,
  waitForRunningAndReady,
  waitForStatus,
  waitForStatusField,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-api");
});
afterAll(async () => {
  await env?.stop();
});

describe.concurrent("[StatefulSetBasic] API (PetSet)", () => {
  it("should have a working scale subresource", { timeout: TEST_MS }, async () => {
    const name = "ss-scale";
    await createPetSet(env, newPetSet(name, 1));
    await waitForRunningAndReady(env, name, 1);
    // waitForStatus; and status.replicas counts the pod (status writes may lag the pod)
    await waitForStatusField(env, name, "replicas", 1);

    const scaleOf = () =>
      env.custom.getNamespacedCustomObjectScale({ ...ps, namespace: env.namespace, name });
    type Scale = {
      metadata: Record<string, unknown>;
      spec: { replicas: number };
      status: { replicas: number };
    };
    const s = (await scaleOf()) as Scale;
    expect(s.spec.replicas).toBe(1);
    expect(s.status.replicas).toBe(1);

    // updating the scale subresource, unconditionally (no resourceVersion)
    const { resourceVersion: _rv, ...metadata } = s.metadata;
    const body: Scale = { ...s, metadata, spec: { replicas: 2 } };
    const updated = (await env.custom.replaceNamespacedCustomObjectScale({
      ...ps,
      namespace: env.namespace,
      name,
      body,
    })) as Scale;
    expect(updated.spec.replicas).toBe(2);
    expect((await getPetSet(env, name)).spec.replicas).toBe(2);

    // patching the scale subresource (a merge patch: custom resources take no strategic merge)
    await env.custom.patchNamespacedCustomObjectScale(
      { ...ps, namespace: env.namespace, name, body: { spec: { replicas: 4 } } },
      merge,
    );
    expect((await getPetSet(env, name)).spec.replicas).toBe(4);
  });

  it("should list, patch and delete a collection of StatefulSets", { timeout: TEST_MS }, async () => {
    const name = "test-ss";
    const pauseImage = "registry.k8s.io/pause:3.10";
    await createPetSet(env, newPetSet(name, 1, { labels: { name: "sample-pod", pod: "httpd" } }));
    await waitForRunningAndReady(env, name, 1);
    await waitForStatus(env, name);

    // patching the PetSet: a label, replicas, the template
    const patched = await updatePetSet(env, name, {
      metadata: { labels: { "test-ss": "patched" } },
      spec: {
        replicas: 2,
        template: { spec: { terminationGracePeriodSeconds: 1, containers: [{ name, image: pauseImage }] } },
      },
    });
    expect(patched.spec.replicas).toBe(2);
    expect((patched.spec.template.spec as { containers: { image: string }[] }).containers[0]?.image).toBe(
      pauseImage,
    );
    await waitForRunningAndReady(env, name, 2);
    await waitForStatus(env, name);

    // listing every PetSet (all namespaces) with the label
    const listAll = async () =>
      (
        (await env.custom.listClusterCustomObject({ ...ps, labelSelector: "test-ss=patched" })) as {
          items: PetSet[];
        }
      ).items;
    expect(await listAll()).toHaveLength(1);

    // deleting the collection
    await env.custom.deleteCollectionNamespacedCustomObject({
      ...ps,
      namespace: env.namespace,
      labelSelector: "test-ss=patched",
      gracePeriodSeconds: 1,
    });
    await eventually("PetSets with test-ss=patched deleted", async () =>
      (await listAll()).length === 0 ? true : undefined,
    );
  });

  it("should validate Statefulset Status endpoints", { timeout: TEST_MS }, async () => {
    const name = "ss-status";
    await createPetSet(env, newPetSet(name, 1));
    await waitForRunningAndReady(env, name, 1);
    await waitForStatus(env, name);

    // a watch on the label from before it is set
    const seen: PetSet[] = [];
    const watch = await new Watch(env.cluster.kubeConfig).watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${env.namespace}/${PETSET_PLURAL}`,
      { labelSelector: "e2e=testing" },
      (_type: string, obj: PetSet) => seen.push(obj),
      () => {},
    );
    const seenCondition = (type: string, reason?: string) =>
      eventually(
        `a watch event of ${name} with condition ${type}`,
        () =>
          seen.some((o) =>
            o.status?.conditions.some(
              (c) => c.type === type && (reason === undefined || c.reason === reason),
            ),
          ) || undefined,
        WAIT_MS,
      );
    try {
      await updatePetSet(env, name, { metadata: { labels: { e2e: "testing" } } });

      // GET /status
      const status = (await env.custom.getNamespacedCustomObjectStatus({
        ...ps,
        namespace: env.namespace,
        name,
      })) as PetSet;
      expect(status.metadata.name).toBe(name);
      expect(status.status?.observedGeneration).toBeGreaterThan(0);

      // PUT /status with one more condition, retried on conflict (the controller writes too)
      const condition = {
        type: "StatusUpdate",
        status: "True",
        reason: "E2E",
        message: "Set from e2e test",
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      };
      await eventually(
        "status updated",
        async () => {
          const cur = await getPetSet(env, name);
          const body = {
            ...cur,
            status: { ...cur.status, conditions: [...(cur.status?.conditions ?? []), condition] },
          };
          const updated = (await env.custom.replaceNamespacedCustomObjectStatus({
            ...ps,
            namespace: env.namespace,
            name,
            body,
          })) as PetSet;
          return updated.status?.conditions.some((c) => c.type === "StatusUpdate") || undefined;
        },
        WAIT_MS,
      );
      await seenCondition("StatusUpdate", "E2E");

      // PATCH /status. Upstream's payload has only type and status; PetSet conditions are
      // metav1.Condition (reason, message, lastTransitionTime required), so it is refused.
      const bare = { status: { conditions: [{ type: "StatusPatched", status: "True" }] } };
      await expect(
        env.custom.patchNamespacedCustomObjectStatus(
          { ...ps, namespace: env.namespace, name, body: bare },
          merge,
        ),
      ).rejects.toMatchObject({ code: 422 });
      const full = { status: { conditions: [{ ...condition, type: "StatusPatched", reason: "E2E" }] } };
      const patched = (await env.custom.patchNamespacedCustomObjectStatus(
        { ...ps, namespace: env.namespace, name, body: full },
        merge,
      )) as PetSet;
      expect(patched.status?.conditions.map((c) => c.type)).toContain("StatusPatched");
      await seenCondition("StatusPatched");
    } finally {
      watch.abort();
    }
  });
});
