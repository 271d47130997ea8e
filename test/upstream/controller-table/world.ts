/**
 * The in-process world of Kubernetes' StatefulSet controller table
 * (pkg/controller/statefulset/stateful_set_control_test.go), re-expressed for PetSets: one
 * PetSet as upstream's `newStatefulSet` (name foo, selector foo=bar, claim template datadir,
 * a hostPath volume home, service governingsvc, revisionHistoryLimit 2), synced by the real
 * sync (planner + executor) against the fake world of the unit tests
 * (test/unit/controller/fake-world.ts) with its per-call failure injection, and the pod state
 * changes upstream's fakeObjectManager makes (setPodPending/Running/Ready, addTerminatingPod,
 * a terminal phase). No clock but the injected one.
 *
 * Deletes are immediate, as upstream's fake object manager; with `graceful` on, a deleted pod
 * stays terminating (deletionTimestamp set) until `finishTerminating` removes it, as upstream's
 * scale-down driver re-adds it with addTerminatingPod.
 */
import type { KubernetesObject, V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { Labels, type PetSetStatus } from "../../../src/api/index.js";
import { type SyncContext, syncPetSet } from "../../../src/controller/sync.js";
import { apiError, FakeWorld } from "../../unit/controller/fake-world.js";

export { apiError } from "../../unit/controller/fake-world.js";

export const NS = "default";
export const SET = "foo";
export const SET_UID = "test";
export const ORIGINAL_IMAGE = "nginx";

type Retention = "Retain" | "Delete";
export interface RetentionPolicy {
  whenScaled: Retention;
  whenDeleted: Retention;
}

/** Upstream's runTestOverPVCRetentionPolicies, by its subtest names (nullPolicy: none set). */
export const POLICIES: readonly { name: string; policy: RetentionPolicy | null }[] = [
  { name: "Retain", policy: { whenScaled: "Retain", whenDeleted: "Retain" } },
  { name: "ScaleDownOnly", policy: { whenScaled: "Delete", whenDeleted: "Retain" } },
  { name: "SetDeleteOnly", policy: { whenScaled: "Retain", whenDeleted: "Delete" } },
  { name: "Delete", policy: { whenScaled: "Delete", whenDeleted: "Delete" } },
  { name: "nullPolicy", policy: null },
];

export interface SetOptions {
  replicas: number;
  burst?: boolean;
  policy?: RetentionPolicy | null;
  partition?: number;
  maxUnavailable?: number | string;
  onDelete?: boolean;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  startOrdinal?: number;
}

/** Upstream's newStatefulSet(replicas), with burst(), the policy and the strategy applied. */
export function newPetSet(o: SetOptions): KubernetesObject {
  const rollingUpdate: Record<string, unknown> = {};
  if (o.partition !== undefined) rollingUpdate.partition = o.partition;
  if (o.maxUnavailable !== undefined) rollingUpdate.maxUnavailable = o.maxUnavailable;
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: SET, namespace: NS, uid: SET_UID, generation: 1, resourceVersion: "1" },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { foo: "bar" } },
      serviceName: "governingsvc",
      podManagementPolicy: o.burst ? "Parallel" : "OrderedReady",
      updateStrategy: o.onDelete ? { type: "OnDelete" } : { type: "RollingUpdate", rollingUpdate },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 2,
      ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
      ...(o.startOrdinal !== undefined ? { ordinals: { start: o.startOrdinal } } : {}),
      ...(o.policy ? { persistentVolumeClaimRetentionPolicy: o.policy } : {}),
      template: {
        metadata: { labels: { foo: "bar" } },
        spec: {
          containers: [
            {
              name: "nginx",
              image: ORIGINAL_IMAGE,
              volumeMounts: [
                { name: "datadir", mountPath: "/tmp/zookeeper" },
                { name: "home", mountPath: "/home" },
              ],
            },
          ],
          volumes: [{ name: "home", hostPath: { path: "/tmp/home" } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "datadir" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  } as KubernetesObject;
}

export interface PetSetSpecView {
  replicas: number;
  podManagementPolicy?: string;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  ordinals?: { start: number };
  updateStrategy: { type: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
  persistentVolumeClaimRetentionPolicy?: RetentionPolicy;
  template: { spec: { containers: { name: string; image: string }[] } };
}

export interface SyncOutcome {
  error?: unknown;
  requeueAfterMs?: number;
}

/** An InternalError (500) as upstream's apierrors.NewInternalError("API server failed"). */
export const internalError = () =>
  apiError(500, "InternalError", "Internal error occurred: API server failed");

export function isInternalError(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e !== undefined && e !== null && !seen.has(e)) {
    seen.add(e);
    const code =
      (e as { code?: unknown; statusCode?: unknown }).code ?? (e as { statusCode?: unknown }).statusCode;
    if (code === 500) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export class TableWorld {
  readonly fake = new FakeWorld();
  readonly ctx: SyncContext;
  /** Deleted pods stay terminating until finishTerminating() (upstream's addTerminatingPod). */
  graceful = false;

  constructor(set: KubernetesObject) {
    this.fake.petSets.put(structuredClone(set));
    const ctx = this.fake.context();
    const remove = ctx.pods.delete.bind(ctx.pods);
    ctx.pods.delete = async (ns, name, uid, rv) => {
      const before = this.fake.pods.live(name, ns);
      const result = await remove(ns, name, uid, rv);
      if (this.graceful && result.deleted && before !== undefined) {
        this.fake.pods.put({
          ...before,
          metadata: {
            ...before.metadata,
            deletionTimestamp: new Date(this.fake.now),
            resourceVersion: this.fake.nextRv(),
          },
        });
      }
      return result;
    };
    this.ctx = ctx;
  }

  /**
   * The pods the PetSet's status was derived from: the view of the last sync whose status
   * write landed or was not needed (petset derives status from the view it planned on, SPEC
   * rule 9, so a pod the sync itself created or deleted is not in it).
   */
  statusView: V1Pod[] | undefined;

  /** One UpdateStatefulSet: a sync of the PetSet; its error is returned, not thrown. */
  async sync(): Promise<SyncOutcome> {
    const view = this.pods();
    const attempts = this.count("status");
    const written = this.fake.statuses.length;
    let out: SyncOutcome;
    try {
      out = await syncPetSet(this.ctx, `${NS}/${SET}`);
    } catch (error) {
      out = { error };
    }
    if (this.count("status") === attempts || this.fake.statuses.length > written) this.statusView = view;
    return out;
  }

  /** Syncs until one writes nothing (a stable world), at most `max` times. */
  async settle(max = 20): Promise<void> {
    for (let i = 0; i < max; i++) {
      const before = this.fake.calls.length;
      const out = await this.sync();
      if (out.error !== undefined) throw out.error;
      if (this.fake.calls.length === before) return;
    }
    throw new Error(`no stable world after ${max} syncs`);
  }

  petSet(): KubernetesObject & { spec: PetSetSpecView; status?: PetSetStatus } {
    const ps = this.fake.petSets.live(SET, NS);
    if (ps === undefined) throw new Error("PetSet foo is gone");
    return ps as KubernetesObject & { spec: PetSetSpecView; status?: PetSetStatus };
  }

  spec(): PetSetSpecView {
    return this.petSet().spec;
  }

  status(): PetSetStatus {
    const st = this.petSet().status;
    return (st ?? { replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0 }) as PetSetStatus;
  }

  /** A user's write of the spec: a new generation and resourceVersion, the status kept. */
  update(change: (spec: PetSetSpecView) => void): void {
    const ps = structuredClone(this.petSet());
    change(ps.spec);
    ps.metadata = {
      ...ps.metadata,
      generation: (ps.metadata?.generation ?? 1) + 1,
      resourceVersion: this.fake.nextRv(),
    };
    this.fake.petSets.put(ps);
  }

  setImage(image: string): void {
    this.update((s) => {
      const c = s.template.spec.containers[0];
      if (c) c.image = image;
    });
  }

  /** The PetSet's pods the API has (selector foo=bar), ascending ordinal. */
  pods(): V1Pod[] {
    return this.fake.pods
      .liveList()
      .filter((p) => p.metadata?.labels?.foo === "bar")
      .sort((a, b) => ordinalOf(a) - ordinalOf(b));
  }

  pod(ordinal: number): V1Pod | undefined {
    return this.fake.pods.live(`${SET}-${ordinal}`, NS);
  }

  claims(): V1PersistentVolumeClaim[] {
    return [...this.fake.claims.liveList()].sort((a, b) =>
      (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""),
    );
  }

  claim(name: string): V1PersistentVolumeClaim | undefined {
    return this.fake.claims.live(name, NS);
  }

  count(verb: string): number {
    return this.fake.calls.filter((c) => c.verb === verb).length;
  }

  private change(ordinal: number, edit: (pod: V1Pod) => void): void {
    const live = this.pod(ordinal);
    if (live === undefined) throw new Error(`${SET}-${ordinal} does not exist`);
    const pod = structuredClone(live);
    edit(pod);
    pod.metadata = { ...pod.metadata, resourceVersion: this.fake.nextRv() };
    this.fake.pods.put(pod);
  }

  setPodPhase(ordinal: number, phase: string): void {
    this.change(ordinal, (pod) => {
      pod.status = { ...pod.status, phase, conditions: [] };
    });
  }

  setPodPending(ordinal: number): void {
    this.setPodPhase(ordinal, "Pending");
  }

  setPodRunning(ordinal: number): void {
    this.setPodPhase(ordinal, "Running");
  }

  /** Running and Ready since `at` (default: now). */
  setPodReady(ordinal: number, at = this.fake.now): void {
    this.change(ordinal, (pod) => {
      pod.status = {
        ...pod.status,
        phase: "Running",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date(at) }],
      };
    });
  }

  /** Upstream's addTerminatingPod: the pod stays, with a deletionTimestamp. */
  setPodTerminating(ordinal: number): void {
    this.change(ordinal, (pod) => {
      pod.metadata = { ...pod.metadata, deletionTimestamp: new Date(this.fake.now) };
    });
  }

  /** The kubelet is done with every terminating pod: they leave the API. */
  finishTerminating(): void {
    for (const pod of this.pods())
      if (pod.metadata?.deletionTimestamp !== undefined) this.fake.pods.remove(pod.metadata.name ?? "", NS);
  }

  /** A pod removed behind the controller's back (upstream: podsIndexer.Delete). */
  removePod(ordinal: number): void {
    this.fake.pods.remove(`${SET}-${ordinal}`, NS);
  }

  removeClaim(name: string): void {
    this.fake.claims.remove(name, NS);
  }
}

export function ordinalOf(pod: V1Pod): number {
  const m = /-([0-9]+)$/.exec(pod.metadata?.name ?? "");
  return m?.[1] === undefined ? -1 : Number(m[1]);
}

export function isReady(pod: V1Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    pod.metadata?.deletionTimestamp === undefined &&
    (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

export function podVersion(pod: V1Pod): number | undefined {
  const v = pod.metadata?.labels?.[Labels.version];
  return v === undefined ? undefined : Number(v);
}

export function podImage(pod: V1Pod): string | undefined {
  return pod.spec?.containers[0]?.image;
}

/** A seeded choice of `n` (mulberry32): upstream's rand.Int63n, reproducible. */
export function seededPick(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(r * n);
  };
}
