/**
 * Hand-written fakes for the sync: caches backed by plain maps and adapters that write into
 * the same maps (so the next sync sees what the last one did), with error injection
 * ("fail the 2nd pod create with 422"). No API server, no mocks of client-node.
 */
import {
  ApiException,
  type KubernetesObject,
  type V1OwnerReference,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from "@kubernetes/client-node";
import pino from "pino";
import type { PetSetStatus, PetSetVersion } from "../../../src/api/index.js";
import type { ClaimControl } from "../../../src/controller/claim-control.js";
import type { EventRecorder, EventTarget, RecordedEvent } from "../../../src/controller/event-recorder.js";
import { ExpectationStore } from "../../../src/controller/expectations.js";
import type { ControllerCaches, ResourceCache } from "../../../src/controller/informers.js";
import { createMetrics } from "../../../src/controller/metrics.js";
import type {
  PetSetReader,
  PetSetWriter,
  StatusUpdater,
  VersionControl,
} from "../../../src/controller/petset-client.js";
import type { PodControl } from "../../../src/controller/pod-control.js";
import type { SyncContext } from "../../../src/controller/sync.js";

type Verb =
  | "createPod"
  | "deletePod"
  | "patchPod"
  | "setPodOwners"
  | "setClaimOwners"
  | "adoptVersion"
  | "createClaim"
  | "deleteClaim"
  | "createVersion"
  | "deleteVersion"
  | "recordVersionStatus"
  | "status";

export class FakeCache<T extends KubernetesObject> implements ResourceCache<T> {
  readonly objects = new Map<string, T>();
  readonly synced = Promise.resolve();
  /** While held, writes wait in `lag` (a watch that is behind); release() delivers them. */
  private held = false;
  private readonly lag: (() => void)[] = [];
  constructor(readonly name: string) {}
  private key(name: string, ns?: string) {
    return `${ns ?? ""}/${name}`;
  }
  hold(): void {
    this.held = true;
  }
  release(): void {
    this.held = false;
    for (const apply of this.lag.splice(0)) apply();
  }
  put(obj: T): void {
    const apply = () => this.objects.set(this.key(obj.metadata?.name ?? "", obj.metadata?.namespace), obj);
    if (this.held) this.lag.push(apply);
    else apply();
  }
  remove(name: string, ns: string): void {
    const apply = () => this.objects.delete(this.key(name, ns));
    if (this.held) this.lag.push(apply);
    else apply();
  }
  get(name: string, ns?: string): T | undefined {
    return this.objects.get(this.key(name, ns));
  }
  list(ns?: string): readonly T[] {
    return [...this.objects.values()].filter((o) => ns === undefined || o.metadata?.namespace === ns);
  }
  ofPetSet(ns: string, petSet: string): readonly T[] {
    return this.list(ns).filter((o) => o.metadata?.labels?.["petset.dev/petset"] === petSet);
  }
  controlledBy(ns: string, uid: string): readonly T[] {
    return this.list(ns).filter((o) =>
      (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid),
    );
  }
  namedUnder(ns: string, prefix: string): readonly T[] {
    return this.list(ns).filter((o) => (o.metadata?.name ?? "").startsWith(`${prefix}-`));
  }
  onChange(): void {}
  async stop(): Promise<void> {}
}

export function apiError(code: number, reason: string, message: string): ApiException<string> {
  return new ApiException(
    code,
    message,
    JSON.stringify({ kind: "Status", status: "Failure", code, reason, message }),
    {},
  );
}

export class FakeWorld {
  now = Date.parse("2026-11-29T12:00:00Z");
  rv = 100;
  readonly petSets = new FakeCache<KubernetesObject>("petsets");
  readonly versions = new FakeCache<KubernetesObject>("petsetversions");
  readonly pods = new FakeCache<V1Pod>("pods");
  readonly claims = new FakeCache<V1PersistentVolumeClaim>("persistentvolumeclaims");
  readonly calls: { verb: Verb; name: string }[] = [];
  /** Pods the API has but the caches cannot show (no petset.dev/petset label), by "ns/name". */
  readonly hidden = new Map<string, V1Pod>();
  /** Hidden pods deleted right after a create collides with them ("ns/name"): the race of a user's delete. */
  readonly vanishOnCollision = new Set<string>();
  readonly events: (RecordedEvent & { object: string })[] = [];
  readonly statuses: PetSetStatus[] = [];
  readonly expectations = new ExpectationStore(30_000);
  private readonly failures = new Map<string, { nth: number; error: unknown }>();
  private readonly counts = new Map<Verb, number>();

  /** The `nth` call (1-based) of `verb` throws `error`. */
  failOn(verb: Verb, nth: number, error: unknown): void {
    this.failures.set(`${verb}#${nth}`, { nth, error });
  }

  private call(verb: Verb, name: string): void {
    const n = (this.counts.get(verb) ?? 0) + 1;
    this.counts.set(verb, n);
    this.calls.push({ verb, name });
    const f = this.failures.get(`${verb}#${n}`);
    if (f) throw f.error;
  }

  nextRv(): string {
    this.rv++;
    return String(this.rv);
  }

  context(): SyncContext {
    const world = this;
    const pods: PodControl = {
      async get(ns, name) {
        return world.hidden.get(`${ns}/${name}`) ?? world.pods.get(name, ns);
      },
      async create(ns, pod) {
        const hidden = world.hidden.get(`${ns}/${pod.metadata?.name}`);
        if (hidden) {
          if (world.vanishOnCollision.delete(`${ns}/${pod.metadata?.name}`))
            world.hidden.delete(`${ns}/${pod.metadata?.name}`);
          throw apiError(409, "AlreadyExists", `pods "${pod.metadata?.name}" already exists`);
        }
        world.call("createPod", pod.metadata?.name ?? "");
        const uid = `uid-${pod.metadata?.name}-${world.rv}`;
        world.pods.put({
          ...structuredClone(pod),
          metadata: { ...pod.metadata, namespace: ns, uid, resourceVersion: world.nextRv() },
          status: { phase: "Pending" },
        });
        return { uid };
      },
      async delete(ns, name) {
        world.call("deletePod", name);
        const existed = world.pods.get(name, ns) !== undefined;
        world.pods.remove(name, ns);
        return { deleted: existed };
      },
      async patch(ns, name) {
        world.call("patchPod", name);
        world.bumpPod(name, ns);
      },
      async patchImages(ns, name) {
        world.call("patchPod", name);
        world.bumpPod(name, ns);
      },
      async setOwnerReferences(ns, name, uid, rv, refs) {
        world.call("setPodOwners", name);
        world.setOwners(world.pods, ns, name, uid, rv, refs);
      },
    };
    const claims: ClaimControl = {
      async create(ns, claim) {
        world.call("createClaim", claim.metadata?.name ?? "");
        world.claims.put({
          ...structuredClone(claim),
          metadata: { ...claim.metadata, namespace: ns, uid: "c", resourceVersion: world.nextRv() },
        });
      },
      async delete(ns, name, uid, resourceVersion) {
        world.call("deleteClaim", name);
        const current = world.claims.get(name, ns);
        if (current === undefined) return;
        // The API's preconditions: a claim replaced or changed since it was read is kept.
        if (current.metadata?.uid !== uid || current.metadata?.resourceVersion !== resourceVersion)
          throw apiError(
            409,
            "Conflict",
            `Operation cannot be fulfilled on persistentvolumeclaims "${name}"`,
          );
        world.claims.remove(name, ns);
      },
      async setOwnerReferences(ns, name, uid, rv, refs) {
        world.call("setClaimOwners", name);
        world.setOwners(world.claims, ns, name, uid, rv, refs);
      },
    };
    const versions: VersionControl = {
      async create(v: PetSetVersion) {
        world.call("createVersion", v.metadata.name ?? "");
        world.versions.put({
          ...structuredClone(v),
          metadata: { ...v.metadata, uid: `uid-${v.metadata.name}`, resourceVersion: world.nextRv() },
        } as KubernetesObject);
      },
      async delete(ns, name) {
        world.call("deleteVersion", name);
        world.versions.remove(name, ns);
      },
      async recordStatus(ns, name, rv, st) {
        world.call("recordVersionStatus", name);
        const v = world.versions.get(name, ns);
        if (v === undefined) return; // NotFound counts as done (VersionControl contract)
        if (v.metadata?.resourceVersion !== rv)
          throw apiError(409, "Conflict", `the object has been modified: petsetversions "${name}"`);
        world.versions.put({
          ...v,
          metadata: { ...v.metadata, resourceVersion: world.nextRv() },
          status: structuredClone(st),
        } as KubernetesObject);
      },
      async adopt(ns, name, rv, owner) {
        world.call("adoptVersion", name);
        const v = world.versions.get(name, ns);
        world.setOwners(world.versions, ns, name, v?.metadata?.uid ?? "", rv, [owner]);
      },
    };
    const status: StatusUpdater = {
      async update(ns, name, _rv, st) {
        world.call("status", name);
        world.statuses.push(structuredClone(st));
        const ps = world.petSets.get(name, ns);
        if (ps)
          world.petSets.put({
            ...ps,
            metadata: { ...ps.metadata, resourceVersion: world.nextRv() },
            status: st,
          } as KubernetesObject);
      },
    };
    const petSets: PetSetWriter & PetSetReader = {
      async patch() {
        return world.nextRv();
      },
      async getFresh(ns, name) {
        const ps = world.petSets.get(name, ns);
        if (!ps) return undefined;
        return { uid: ps.metadata?.uid ?? "", deleting: ps.metadata?.deletionTimestamp !== undefined };
      },
    };
    const events: EventRecorder = {
      async record(target: EventTarget, e: RecordedEvent) {
        world.events.push({ ...e, object: `${target.kind}/${target.name}` });
      },
    };
    const caches: ControllerCaches = {
      petSets: this.petSets,
      versions: this.versions,
      pods: this.pods,
      claims: this.claims,
    };
    return {
      caches,
      clock: { now: () => world.now },
      logger: pino({ level: "silent" }),
      pods,
      claims,
      versions,
      status,
      petSets,
      events,
      metrics: createMetrics(),
      expectations: this.expectations,
    };
  }

  /** A write to a pod: a new resourceVersion, as the API gives it. */
  bumpPod(name: string, ns: string): void {
    const pod = this.pods.get(name, ns);
    if (pod) this.pods.put({ ...pod, metadata: { ...pod.metadata, resourceVersion: this.nextRv() } });
  }

  /** The API server's part of an ownerReferences merge patch: uid and resourceVersion preconditions. */
  setOwners<T extends KubernetesObject>(
    cache: FakeCache<T>,
    ns: string,
    name: string,
    uid: string,
    rv: string,
    refs: V1OwnerReference[] | null,
  ): void {
    const obj = cache.get(name, ns);
    if (!obj) return;
    if (obj.metadata?.uid !== uid)
      throw apiError(422, "Invalid", `${name}: metadata.uid: field is immutable`);
    if (obj.metadata?.resourceVersion !== rv)
      throw apiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${name}: the object has been modified`,
      );
    const metadata = { ...obj.metadata, resourceVersion: this.nextRv() };
    if (refs === null) delete metadata.ownerReferences;
    else metadata.ownerReferences = refs;
    cache.put({ ...obj, metadata });
  }

  /** The kubelet's part: every pod Running and Ready. */
  /** Each pod replaced by a Ready copy (an informer hands out a new object per change). */
  makePodsReady(): void {
    const at = new Date(this.now - 60_000);
    for (const old of this.pods.list()) {
      const pod = { ...old };
      pod.status = {
        phase: "Running",
        startTime: at,
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: at }],
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? "",
          imageID: "",
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: at } },
        })),
      };
      pod.metadata = { ...pod.metadata, resourceVersion: this.nextRv() };
      this.pods.put(pod);
    }
  }
}

export function petSetObject(image = "nginx:1.27", replicas = 2): KubernetesObject {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: "web", namespace: "default", uid: "ps-uid", generation: 1, resourceVersion: "1" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image }] } },
    },
  } as KubernetesObject;
}
