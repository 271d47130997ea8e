/**
 * Issue 29 (memory): the caches keep only what decisions read (cache-trim.ts, parsed-cache.ts).
 * Table: pods in every state a rule looks at, as a typed list and as a watch event deliver them;
 * the planner's views of the trimmed pods, and the plan over them, equal those of the full pods.
 * A rule that starts reading a field the trim drops fails here.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Annotations, Labels, PetSetSchema, PetSetVersionSchema } from "../../../src/api/index.js";
import { ownedObjectMeta } from "../../../src/controller/adoption.js";
import { POD_CONDITIONS, trimPod } from "../../../src/controller/cache-trim.js";
import {
  parsePetSet,
  parsePetSetInPlace,
  parseVersionInPlace,
} from "../../../src/controller/parsed-cache.js";
import { planRollout } from "../../../src/controller/planner/index.js";
import { podViewFromV1Pod } from "../../../src/controller/planner/views.js";
import { makePetSet, makeVersion } from "./planner/fixtures.js";

const NOW = Date.parse("2026-12-01T10:10:00Z");
const v1 = makeVersion(1, "app:1");
const v2 = makeVersion(2, "app:2", { createdAt: NOW - 60_000 });
const T0 = "2026-12-01T10:00:00Z";

interface PodCase {
  ordinal: number;
  version?: typeof v1;
  ready?: boolean;
  /** Ready flipped at this time (notReadySince / readySince). */
  readyAt?: string;
  terminating?: boolean;
  crashLoop?: "waiting" | "restartedAfterBackOff";
  resize?: "pending" | "inProgress";
  resources?: boolean;
  targetVersion?: number;
}

/** A pod as the API returns it: every field the kubelet and the API server write. */
function wirePod(c: PodCase): V1Pod {
  const v = c.version ?? v1;
  const image = v.spec.template.spec.containers[0]?.image ?? "";
  const ready = c.ready ?? true;
  const condition = (type: string, status: string, at = T0, extra = {}) => ({
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: at,
    ...extra,
  });
  const resources = c.resources
    ? { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } }
    : {};
  return JSON.parse(
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `web-${c.ordinal}`,
        generateName: "web-",
        namespace: "default",
        uid: `uid-${c.ordinal}`,
        resourceVersion: `${100 + c.ordinal}`,
        generation: 1,
        creationTimestamp: T0,
        ...(c.terminating
          ? { deletionTimestamp: "2026-12-01T10:09:30Z", deletionGracePeriodSeconds: 30 }
          : {}),
        labels: {
          app: "web",
          [Labels.petSet]: "web",
          [Labels.version]: String(v.spec.version),
          [Labels.hash]: v.spec.hash,
          [Labels.podIndex]: String(c.ordinal),
        },
        annotations: {
          "petset.dev/generation": "1",
          ...(c.targetVersion !== undefined ? { [Annotations.targetVersion]: String(c.targetVersion) } : {}),
          "kubectl.kubernetes.io/last-applied-configuration": '{"big":"json"}',
        },
        ownerReferences: [
          {
            apiVersion: "petset.dev/v1alpha1",
            kind: "PetSet",
            name: "web",
            uid: "set-uid",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        finalizers: ["example.com/keep"],
        managedFields: [{ manager: "petset-controller", operation: "Update", fieldsV1: { "f:spec": {} } }],
      },
      spec: {
        nodeName: "node-1",
        hostname: `web-${c.ordinal}`,
        subdomain: "web",
        initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
        containers: [
          {
            name: "app",
            image,
            ports: [{ containerPort: 80 }],
            env: [{ name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
            resources,
            terminationMessagePath: "/dev/termination-log",
          },
        ],
        tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" }],
        restartPolicy: "Always",
      },
      status: {
        phase: ready || c.crashLoop ? "Running" : "Pending",
        hostIP: "10.0.0.1",
        podIP: "10.1.0.7",
        podIPs: [{ ip: "10.1.0.7" }],
        startTime: T0,
        qosClass: "Burstable",
        conditions: [
          condition("PodScheduled", "True"),
          condition("Initialized", "True"),
          condition("ContainersReady", ready ? "True" : "False", c.readyAt),
          condition("Ready", ready ? "True" : "False", c.readyAt),
          ...(c.resize === "pending"
            ? [
                condition("PodResizePending", "True", "2026-12-01T10:05:00Z", {
                  reason: "Deferred",
                  message: "no room",
                }),
              ]
            : []),
          ...(c.resize === "inProgress" ? [condition("PodResizeInProgress", "True")] : []),
        ],
        initContainerStatuses: [
          {
            name: "init",
            image: "busybox:1.36",
            imageID: "docker.io/library/busybox@sha256:0",
            containerID: "containerd://0",
            ready: true,
            started: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: "Completed", finishedAt: T0, startedAt: T0 } },
          },
        ],
        containerStatuses: [
          {
            name: "app",
            image,
            imageID: "docker.io/library/app@sha256:1",
            containerID: "containerd://1",
            ready,
            started: true,
            restartCount: c.crashLoop ? 4 : 0,
            resources: c.resources ? { requests: { cpu: "50m", memory: "64Mi" } } : undefined,
            state:
              c.crashLoop === "waiting"
                ? { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } }
                : { running: { startedAt: "2026-12-01T10:08:00Z" } },
            lastState: c.crashLoop
              ? {
                  terminated: {
                    exitCode: 1,
                    reason: "Error",
                    startedAt: T0,
                    finishedAt: "2026-12-01T10:07:00Z",
                  },
                }
              : {},
            volumeMounts: [{ name: "data", mountPath: "/data" }],
          },
        ],
      },
    }),
  ) as V1Pod;
}

/** As client-node's typed list hands it over: times as Date objects. */
function typed(pod: V1Pod): V1Pod {
  const dates = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(dates);
    if (typeof o !== "object" || o === null) return o;
    return Object.fromEntries(
      Object.entries(o).map(([k, v]) => [
        k,
        typeof v === "string" && /(Timestamp|Time|At)$/.test(k) ? new Date(v) : dates(v),
      ]),
    );
  };
  return dates(pod) as V1Pod;
}

const CASES: Record<string, PodCase[]> = {
  "all ready": [{ ordinal: 0 }, { ordinal: 1 }, { ordinal: 2 }],
  "one not ready since a time": [
    { ordinal: 0 },
    { ordinal: 1, ready: false, readyAt: "2026-12-01T10:02:00Z" },
    { ordinal: 2 },
  ],
  "crash loop, waiting": [{ ordinal: 0 }, { ordinal: 1, ready: false, crashLoop: "waiting" }, { ordinal: 2 }],
  "crash loop, running again after a back-off": [
    { ordinal: 0, ready: false, crashLoop: "restartedAfterBackOff" },
    { ordinal: 1 },
    { ordinal: 2 },
  ],
  "terminating with a grace period": [{ ordinal: 0 }, { ordinal: 1 }, { ordinal: 2, terminating: true }],
  "resize pending and in progress": [
    { ordinal: 0, resources: true, resize: "pending" },
    { ordinal: 1, resources: true, resize: "inProgress" },
    { ordinal: 2, resources: true },
  ],
  "mid-rollout, one at the new version": [
    { ordinal: 0 },
    { ordinal: 1 },
    { ordinal: 2, version: v2, targetVersion: 2, readyAt: "2026-12-01T10:09:50Z" },
  ],
};

function trimmed(pod: V1Pod): V1Pod {
  const copy = structuredClone(pod);
  trimPod(copy);
  return copy;
}

describe("issue 29: the trimmed caches decide as the full objects do", () => {
  for (const [name, pets] of Object.entries(CASES)) {
    for (const delivery of ["watch", "typed list"] as const) {
      it(`${name} (${delivery}): same views, same plan`, () => {
        const full = pets.map(wirePod).map((p) => (delivery === "typed list" ? typed(p) : p));
        const trim = full.map(trimmed);
        expect(trim.map(podViewFromV1Pod)).toEqual(full.map(podViewFromV1Pod));
        expect(trim.map(ownedObjectMeta)).toEqual(full.map(ownedObjectMeta));
        for (const spec of [{ replicas: 3 }, { replicas: 3, minReadySeconds: 30 }, { replicas: 2 }]) {
          const input = (pods: V1Pod[]) => ({
            petSet: makePetSet({ ...spec, template: v2.spec.template }),
            versions: [v1, v2],
            pods: pods.map(podViewFromV1Pod),
            claims: [],
            now: NOW,
          });
          expect(planRollout(input(trim))).toEqual(planRollout(input(full)));
        }
      });
    }
  }

  it("keeps of a pod's status only phase, the read conditions and the read container state", () => {
    const pod = wirePod({ ordinal: 1, ready: false, crashLoop: "restartedAfterBackOff", resize: "pending" });
    trimPod(pod);
    expect(pod.status?.conditions?.map((c) => c.type)).toEqual(["Ready", "PodResizePending"]);
    expect([...POD_CONDITIONS].sort()).toEqual(["PodResizeInProgress", "PodResizePending", "Ready"]);
    expect(pod.status?.containerStatuses).toEqual([
      {
        name: "app",
        image: "app:1",
        ready: false,
        restartCount: 4,
        state: { running: { startedAt: "2026-12-01T10:08:00Z" } },
        lastState: { terminated: { finishedAt: "2026-12-01T10:07:00Z" } },
      },
    ]);
    expect(Object.keys(pod.status ?? {}).sort()).toEqual([
      "conditions",
      "containerStatuses",
      "initContainerStatuses",
      "phase",
    ]);
    // Metadata: everything but managedFields.
    expect(Object.keys(pod.metadata ?? {}).sort()).toEqual(
      Object.keys(wirePod({ ordinal: 1 }).metadata ?? {})
        .filter((k) => k !== "managedFields")
        .sort(),
    );
  });

  it("turns a typed list's Date objects back into the API's strings and shares repeated strings", () => {
    const [a, b] = [wirePod({ ordinal: 0 }), wirePod({ ordinal: 1 })].map(typed);
    if (a === undefined || b === undefined) throw new Error("unreachable");
    trimPod(a);
    trimPod(b);
    expect(a.metadata?.creationTimestamp).toBe(T0);
    expect(a.status?.conditions?.[0]?.lastTransitionTime).toBe(T0);
    expect(a.metadata?.namespace).toBe(b.metadata?.namespace);
  });

  it("holds a PetSet and a version once: the cache object is their parse", () => {
    const rawSet = JSON.parse(JSON.stringify(makePetSet({ replicas: 3 }))) as Record<string, unknown>;
    const rawVersion = JSON.parse(JSON.stringify(v2)) as Record<string, unknown>;
    const cachedSet = structuredClone(rawSet);
    parsePetSetInPlace(cachedSet);
    const parsed = parsePetSet(cachedSet);
    expect(parsed.success && parsed.data).toBe(cachedSet);
    expect(cachedSet).toEqual(PetSetSchema.parse(rawSet));
    const cachedVersion = structuredClone(rawVersion);
    parseVersionInPlace(cachedVersion);
    expect(cachedVersion).toEqual(PetSetVersionSchema.parse(rawVersion));
  });

  it("keeps a PetSet that does not parse as it came, with its failure for the sync to report", () => {
    const bad = {
      apiVersion: "petset.dev/v1alpha1",
      kind: "PetSet",
      metadata: { name: "x" },
      spec: { replicas: -1 },
    };
    const cached = structuredClone(bad);
    parsePetSetInPlace(cached);
    expect(cached).toEqual(bad);
    expect(parsePetSet(cached).success).toBe(false);
  });
});
