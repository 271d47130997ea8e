import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ownedObjectMeta } from "../../../src/controller/adoption.js";
import { dropManagedFields, trimPetSetManagedFields, trimPod } from "../../../src/controller/cache-trim.js";
import { trimPetSet, trimVersion } from "../../../src/controller/informers.js";
import { podViewFromV1Pod } from "../../../src/controller/planner/index.js";
import { changedBy } from "../../../src/versions/describe.js";
import { petSet } from "../versions/fixtures.js";
import { makePetSet, makeVersion } from "./planner/fixtures.js";

const kubectlEntry = {
  manager: "kubectl",
  operation: "Update",
  apiVersion: "petset.dev/v1alpha1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: {
    "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
    "f:spec": {
      "f:replicas": {},
      "f:template": { "f:spec": { "f:containers": { 'k:{"name":"app"}': {} } } },
    },
  },
};

describe("dropManagedFields (pods, claims, versions)", () => {
  it("drops managedFields and keeps everything else", () => {
    const pod = {
      metadata: { name: "web-0", labels: { app: "web" }, managedFields: [kubectlEntry] },
    };
    dropManagedFields(pod);
    expect(pod).toEqual({ metadata: { name: "web-0", labels: { app: "web" } } });
  });

  it("leaves an object without managedFields alone", () => {
    const pod = { metadata: { name: "web-0" } };
    dropManagedFields(pod);
    expect(pod).toEqual({ metadata: { name: "web-0" } });
  });
});

describe("trimPetSetManagedFields", () => {
  it("keeps only the entries changedBy can name: manager, time and the content ownership", () => {
    const ps = {
      metadata: {
        name: "web",
        managedFields: [
          structuredClone(kubectlEntry),
          { manager: "hpa", operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } },
          { manager: "petset-controller", subresource: "status", fieldsV1: { "f:status": { ".": {} } } },
        ],
      },
    };
    trimPetSetManagedFields(ps);
    expect(ps.metadata.managedFields).toEqual([
      { manager: "kubectl", time: kubectlEntry.time, fieldsV1: { "f:spec": { "f:template": {} } } },
    ]);
  });

  // Whatever the entries, the cache's trimmed PetSet names the same author (describe.ts).
  it("never changes who changedBy names", () => {
    const owned = fc.constantFrom(
      {},
      { "f:replicas": {} },
      { "f:template": { "f:spec": {} } },
      { "f:volumeClaimTemplates": {} },
      { "f:template": {}, "f:volumeClaimTemplates": {}, "f:replicas": {} },
    );
    const entry = fc.record(
      {
        manager: fc.constantFrom("kubectl", "argocd", "helm", "petset-controller"),
        subresource: fc.constantFrom("", "status", "scale"),
        time: fc.constantFrom("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "not a time"),
        fieldsV1: fc.oneof(
          owned.map((spec) => ({ "f:metadata": { "f:labels": {} }, "f:spec": spec })),
          fc.constant("malformed"),
          fc.constant(null),
        ),
      },
      { requiredKeys: ["manager"] },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (managedFields) => {
        const before = petSet({ metadata: { managedFields } });
        const trimmed = structuredClone(before);
        trimPetSetManagedFields(trimmed);
        expect(changedBy(trimmed)).toBe(changedBy(before));
      }),
      { seed: 13, numRuns: 500 },
    );
  });
});

/** A pod as the API returns it after admission, the kubelet's status and two field managers. */
function fullPod(): V1Pod {
  const t = "2026-12-01T10:00:00Z";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-1",
      namespace: "shop",
      uid: "uid-web-1",
      resourceVersion: "4242",
      creationTimestamp: new Date(t),
      deletionTimestamp: new Date("2026-12-01T11:00:00Z"),
      deletionGracePeriodSeconds: 30,
      labels: { app: "web", "petset.dev/petset": "web", "petset.dev/version": "3", "petset.dev/hash": "abc" },
      annotations: { "petset.dev/target-version": "4", note: "x" },
      ownerReferences: [
        { apiVersion: "petset.dev/v1alpha1", kind: "PetSet", name: "web", uid: "uid-ps", controller: true },
      ],
      managedFields: [{ manager: "petset-controller", operation: "Update", fieldsV1: { "f:spec": {} } }],
    },
    spec: {
      nodeName: "node-1",
      hostname: "web-1",
      subdomain: "web",
      initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          ports: [{ containerPort: 80 }],
          env: [{ name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          resources: { requests: { cpu: "10m" } },
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
        { name: "sidecar", image: "envoy:1.30" },
      ],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-1" } }],
      tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" }],
    },
    status: {
      phase: "Running",
      hostIP: "10.0.0.1",
      podIP: "10.1.0.7",
      podIPs: [{ ip: "10.1.0.7" }],
      startTime: new Date(t),
      qosClass: "Burstable",
      conditions: [
        { type: "Initialized", status: "True", lastTransitionTime: new Date(t) },
        { type: "Ready", status: "True", lastTransitionTime: new Date("2026-12-01T10:00:05Z") },
      ],
      initContainerStatuses: [
        {
          name: "init",
          image: "busybox:1.36",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: "Completed" } },
        },
      ],
      containerStatuses: [
        {
          name: "app",
          image: "nginx:1.27",
          imageID: "",
          ready: true,
          restartCount: 2,
          state: { running: { startedAt: new Date(t) } },
        },
        {
          name: "sidecar",
          image: "envoy:1.30",
          imageID: "",
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: "CrashLoopBackOff" } },
        },
      ],
    },
  };
}

describe("trimPod", () => {
  it("keeps everything the planner, adoption and the hooks read of a pod", () => {
    const trimmed = fullPod();
    trimPod(trimmed);
    expect(podViewFromV1Pod(trimmed)).toEqual(podViewFromV1Pod(fullPod()));
    expect(ownedObjectMeta(trimmed)).toEqual(ownedObjectMeta(fullPod()));
    // The exec hook picks a container by name.
    expect(trimmed.spec?.containers.map((c) => c.name)).toEqual(["app", "sidecar"]);
    expect(trimmed.metadata?.annotations).toEqual(fullPod().metadata?.annotations);
  });

  it("drops what nothing reads", () => {
    const trimmed = fullPod();
    trimPod(trimmed);
    expect(trimmed.metadata?.managedFields).toBeUndefined();
    expect(trimmed.spec).toEqual({
      nodeName: "node-1",
      initContainers: [{ name: "init", image: "busybox:1.36" }],
      containers: [
        { name: "app", image: "nginx:1.27", resources: { requests: { cpu: "10m" } } },
        { name: "sidecar", image: "envoy:1.30" },
      ],
    });
    expect(Object.keys(trimmed.status ?? {}).sort()).toEqual([
      "conditions",
      "containerStatuses",
      "initContainerStatuses",
      "phase",
    ]);
  });

  it("pods of one owner share one frozen copy of their owner references; another owner has its own", () => {
    const ref = (uid: string) => ({
      apiVersion: "petset.dev/v1alpha1",
      kind: "PetSet",
      name: "web",
      uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    const pods: V1Pod[] = ["web-0", "web-1"].map((name) => ({
      metadata: { name, ownerReferences: [ref("u1")] },
    }));
    const other: V1Pod = { metadata: { name: "web-0", ownerReferences: [ref("u2")] } };
    for (const p of [...pods, other]) trimPod(p);
    expect(pods[0]?.metadata?.ownerReferences).toEqual([ref("u1")]);
    expect(pods[1]?.metadata?.ownerReferences).toBe(pods[0]?.metadata?.ownerReferences);
    expect(Object.isFrozen(pods[0]?.metadata?.ownerReferences?.[0])).toBe(true);
    expect(other.metadata?.ownerReferences).toEqual([ref("u2")]);
  });

  it("pods with the same spec, annotations and statuses share one frozen copy of each; a different one has its own", () => {
    const [a, b, moved] = [fullPod(), fullPod(), fullPod()];
    if (moved.spec) moved.spec.nodeName = "node-2";
    for (const p of [a, b, moved]) trimPod(p);
    expect(b.spec).toBe(a.spec);
    expect(b.metadata?.annotations).toBe(a.metadata?.annotations);
    expect(b.status?.conditions).toBe(a.status?.conditions);
    expect(b.status?.containerStatuses).toBe(a.status?.containerStatuses);
    expect(Object.isFrozen(a.spec?.containers[0])).toBe(true);
    expect(() => {
      (a.spec?.containers[0] as { image: string }).image = "changed";
    }).toThrow(TypeError);
    expect(moved.spec).not.toBe(a.spec);
    expect(moved.spec?.nodeName).toBe("node-2");
    expect(moved.spec?.containers).toEqual(a.spec?.containers);
    // Each pod keeps its own metadata: names, uids and labels are not shared.
    expect(b.metadata).not.toBe(a.metadata);
  });

  it("leaves a pod without spec or status as it is", () => {
    const bare: V1Pod = { metadata: { name: "web-0" } };
    trimPod(bare);
    expect(bare).toEqual({ metadata: { name: "web-0" } });
  });
});

describe("trimPetSet and trimVersion", () => {
  /** As the wire delivers it: plain JSON, a name of its own. */
  const wire = <T extends { metadata?: { name?: string } }>(obj: T, name: string): T => {
    const copy = JSON.parse(JSON.stringify(obj)) as T;
    if (copy.metadata) copy.metadata.name = name;
    return copy;
  };
  /** The informers' transforms take client-node's object type (times as Date); the wire's are strings. */
  const asCached = (obj: object) => obj as KubernetesObject;

  it("sets with the same pod template and strategies share one frozen copy of them, and parse as before", () => {
    const a = wire(makePetSet({ replicas: 3 }), "a");
    const b = wire(makePetSet({ replicas: 3 }), "b");
    const other = wire(makePetSet({ template: makeVersion(2, "app:2").spec.template }), "c");
    for (const s of [a, b, other]) trimPetSet(asCached(s));
    expect(b.spec.template.spec).toBe(a.spec.template.spec);
    expect(b.spec.updateStrategy).toBe(a.spec.updateStrategy);
    expect(Object.isFrozen(a.spec.template.spec.containers[0])).toBe(true);
    expect(other.spec.template.spec).not.toBe(a.spec.template.spec);
    expect(other.spec.template.spec.containers[0]?.image).toBe("app:2");
    // Names, selectors and template labels stay each set's own.
    expect(b.metadata?.name).toBe("b");
    expect(b.spec.template.metadata).not.toBe(a.spec.template.metadata);
    expect(a).toEqual({ ...wire(makePetSet({ replicas: 3 }), "a"), metadata: a.metadata });
  });

  it("versions with the same template share its pod spec with each other and with their sets", () => {
    const v1 = wire(makeVersion(1, "app:1"), "web-v1");
    const v2 = wire(makeVersion(1, "app:1"), "web-v2");
    const set = wire(makePetSet(), "web");
    for (const v of [v1, v2]) trimVersion(asCached(v));
    trimPetSet(asCached(set));
    expect(v2.spec.template.spec).toBe(v1.spec.template.spec);
    expect(set.spec.template.spec).toBe(v1.spec.template.spec);
    expect(v1.spec.template).toEqual(makeVersion(1, "app:1").spec.template);
  });
});
