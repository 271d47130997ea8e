/**
 * Hand-written fakes for the sync: caches backed by plain maps and adapters that write into
 * the same maps (so the next sync sees what the last one did), with error injection
 * ("fail the 2nd pod create with 422") and lost answers ("the 2nd pod create lands, its
 * answer times out"). No API server, no mocks of client-node.
 *
 * Each FakeCache holds two views: `live` (what the API server has) and the cache view
 * (`get`/`list`: what an informer shows; behind while `hold()`, and without objects its
 * selector cannot see). The adapters enforce the API server's preconditions against the live
 * objects as it does: a stale resourceVersion is 409 Conflict, a uid precondition that names
 * another incarnation is 409 on delete and 422 on a patch that carries metadata.uid, a create
 * of a taken name is 409 AlreadyExists, a write to a missing object 404.
 */
import type {
  KubernetesObject,
  V1OwnerReference,
  V1PersistentVolumeClaim,
  V1Pod,
} from "@kubernetes/client-node";
import pino from "pino";
import type { PetSetStatus, PetSetVersion } from "../../../src/api/index.js";
import type { ClaimControl } from "../../../src/controller/claim-control.js";
import type { EventRecorder, EventTarget, RecordedEvent } from "../../../src/controller/event-recorder.js";
import { ExpectationStore } from "../../../src/controller/expectations.js";
import type { ControllerCaches } from "../../../src/controller/informers.js";
import { createMetrics } from "../../../src/controller/metrics.js";
import {
  type PetSetReader,
  type PetSetWriter,
  type StatusUpdater,
  type VersionControl,
  VersionStatusSubresourceMissing,
} from "../../../src/controller/petset-client.js";
import type { PodControl } from "../../../src/controller/pod-control.js";
import type { SyncContext } from "../../../src/controller/sync.js";
import {
  alreadyExists,
  apiError,
  checkDeletePreconditions,
  checkResourceVersion,
  mergeMap,
  notFound,
  timeoutError,
} from "./fake-api-rules.js";
import { FakeCache } from "./fake-cache.js";

export { apiError, timeoutError } from "./fake-api-rules.js";
export { FakeCache } from "./fake-cache.js";

type Verb =
  | "createPod"
  | "deletePod"
  | "patchPod"
  | "setPodOwners"
  | "setClaimOwners"
  | "adoptVersion"
  | "createClaim"
  | "deleteClaim"
  | "labelClaim"
  | "followClaim"
  | "createVersion"
  | "deleteVersion"
  | "recordVersionStatus"
  | "status"
  | "patchPetSet";

export class FakeWorld {
  now = Date.parse("2026-11-29T12:00:00Z");
  rv = 100;
  readonly petSets = new FakeCache<KubernetesObject>("petsets");
  readonly versions = new FakeCache<KubernetesObject>("petsetversions");
  readonly pods = new FakeCache<V1Pod>("pods");
  /** As the controller's informer: only claims labelled petset.dev/petset. */
  readonly claims = new FakeCache<V1PersistentVolumeClaim>(
    "persistentvolumeclaims",
    (c) => c.metadata?.labels?.["petset.dev/petset"] !== undefined,
  );
  readonly calls: { verb: Verb; name: string }[] = [];
  /** Pods the API has but the caches cannot show (no petset.dev/petset label), by "ns/name". */
  readonly hidden = new Map<string, V1Pod>();
  /** Hidden pods deleted right after a create collides with them ("ns/name"): the race of a user's delete. */
  readonly vanishOnCollision = new Set<string>();
  readonly events: (RecordedEvent & { object: string })[] = [];
  readonly statuses: PetSetStatus[] = [];
  readonly expectations = new ExpectationStore(30_000);
  /** The PetSetVersion CRD serves a status subresource (false: an older CRD, NotFound on /status). */
  versionStatusSubresource = true;
  private readonly failures = new Map<string, unknown>();
  private readonly lostAnswers = new Map<string, unknown>();
  private readonly counts = new Map<Verb, number>();

  /** The `nth` call (1-based) of `verb` throws `error` before it changes anything. */
  failOn(verb: Verb, nth: number, error: unknown): void {
    this.failures.set(`${verb}#${nth}`, error);
  }

  /** The `nth` call (1-based) of `verb` lands, then its answer is lost: it throws `error`. */
  loseAnswerOn(verb: Verb, nth: number, error: unknown = timeoutError()): void {
    this.lostAnswers.set(`${verb}#${nth}`, error);
  }

  /** One API call: injected failure, then the server's part (`apply`), then a lost answer. */
  private write<R>(verb: Verb, name: string, apply: () => R): R {
    const n = (this.counts.get(verb) ?? 0) + 1;
    this.counts.set(verb, n);
    this.calls.push({ verb, name });
    const failure = this.failures.get(`${verb}#${n}`);
    if (failure !== undefined) throw failure;
    const result = apply();
    const lost = this.lostAnswers.get(`${verb}#${n}`);
    if (lost !== undefined) throw lost;
    return result;
  }

  nextRv(): string {
    this.rv++;
    return String(this.rv);
  }

  context(): SyncContext {
    const world = this;
    const pods: PodControl = {
      async get(ns, name) {
        return world.hidden.get(`${ns}/${name}`) ?? world.pods.live(name, ns);
      },
      async create(ns, pod) {
        const name = pod.metadata?.name ?? "";
        const hidden = world.hidden.get(`${ns}/${name}`);
        if (hidden) {
          if (world.vanishOnCollision.delete(`${ns}/${name}`)) world.hidden.delete(`${ns}/${name}`);
          throw alreadyExists("pods", name);
        }
        return world.write("createPod", name, () => {
          if (world.pods.live(name, ns)) throw alreadyExists("pods", name);
          const uid = `uid-${name}-${world.rv}`;
          world.pods.put({
            ...structuredClone(pod),
            metadata: { ...pod.metadata, namespace: ns, uid, resourceVersion: world.nextRv() },
            status: { phase: "Pending" },
          });
          return { uid };
        });
      },
      async delete(ns, name, uid, resourceVersion) {
        return world.write("deletePod", name, () => {
          const current = world.pods.live(name, ns);
          if (current === undefined) return { deleted: false };
          checkDeletePreconditions("pods", current, uid, resourceVersion);
          world.pods.remove(name, ns);
          return { deleted: true };
        });
      },
      async patch(ns, name, rv, patch) {
        world.write("patchPod", name, () => {
          const meta = (patch.metadata ?? {}) as {
            labels?: Record<string, string | null>;
            annotations?: Record<string, string | null>;
          };
          world.patchPod(ns, name, rv, (pod) => ({
            ...pod,
            metadata: {
              ...pod.metadata,
              labels: mergeMap(pod.metadata?.labels, meta.labels),
              annotations: mergeMap(pod.metadata?.annotations, meta.annotations),
            },
          }));
        });
      },
      async patchImages(ns, name, rv, images, meta) {
        world.write("patchPod", name, () => {
          world.patchPod(ns, name, rv, (pod) => ({
            ...pod,
            metadata: {
              ...pod.metadata,
              labels: mergeMap(pod.metadata?.labels, meta.labels),
              annotations: mergeMap(pod.metadata?.annotations, meta.annotations),
            },
            spec: {
              ...pod.spec,
              containers: (pod.spec?.containers ?? []).map((c) => ({
                ...c,
                image: images.find((i) => i.container === c.name)?.image ?? c.image,
              })),
            },
          }));
        });
      },
      async resize(ns, name, rv, resources) {
        return world.write("patchPod", name, () => {
          world.patchPod(ns, name, rv, (pod) => ({
            ...pod,
            spec: {
              ...pod.spec,
              containers: (pod.spec?.containers ?? []).map((c) => {
                const r = resources.find((x) => x.container === c.name);
                if (r === undefined) return c;
                const { container: _, ...wanted } = r;
                return { ...c, resources: { ...c.resources, ...wanted } };
              }),
            },
          }));
          return { resourceVersion: world.pods.live(name, ns)?.metadata?.resourceVersion ?? rv };
        });
      },
      async setOwnerReferences(ns, name, uid, rv, refs) {
        world.write("setPodOwners", name, () => world.setOwners(world.pods, ns, name, uid, rv, refs));
      },
    };
    const claims: ClaimControl = {
      async create(ns, claim) {
        const name = claim.metadata?.name ?? "";
        return world.write("createClaim", name, () => {
          // An existing claim is the pet's storage: kept, never replaced (ClaimControl).
          if (world.claims.live(name, ns)) return { created: false };
          world.claims.put({
            ...structuredClone(claim),
            metadata: {
              ...claim.metadata,
              namespace: ns,
              uid: `uid-${name}-${world.rv}`,
              resourceVersion: world.nextRv(),
            },
          });
          return { created: true };
        });
      },
      async get(ns, name) {
        return world.claims.live(name, ns);
      },
      async addLabels(ns, name, rv, labels) {
        world.write("labelClaim", name, () => {
          const current = world.claims.live(name, ns);
          if (current === undefined) throw notFound("persistentvolumeclaims", name);
          checkResourceVersion("persistentvolumeclaims", current, rv);
          world.claims.put({
            ...current,
            metadata: {
              ...current.metadata,
              labels: { ...current.metadata?.labels, ...labels },
              resourceVersion: world.nextRv(),
            },
          });
        });
      },
      async follow(ns, step) {
        const name = step.claimName;
        world.write("followClaim", name, () => {
          const current = world.claims.live(name, ns);
          if (current === undefined) throw notFound("persistentvolumeclaims", name);
          checkResourceVersion("persistentvolumeclaims", current, step.resourceVersion);
          const spec = { ...current.spec };
          if (step.storage !== undefined)
            spec.resources = {
              ...spec.resources,
              requests: { ...spec.resources?.requests, storage: step.storage },
            };
          if (step.volumeAttributesClassName !== undefined)
            spec.volumeAttributesClassName = step.volumeAttributesClassName;
          world.claims.put({
            ...current,
            metadata: {
              ...current.metadata,
              labels: { ...current.metadata?.labels, ...step.labels },
              annotations: { ...current.metadata?.annotations, ...step.annotations },
              resourceVersion: world.nextRv(),
            },
            spec,
          });
        });
      },
      async delete(ns, name, uid, resourceVersion) {
        world.write("deleteClaim", name, () => {
          const current = world.claims.live(name, ns);
          if (current === undefined) return; // NotFound counts as done (ClaimControl contract)
          // The API's preconditions: a claim replaced or changed since it was read is kept.
          checkDeletePreconditions("persistentvolumeclaims", current, uid, resourceVersion);
          world.claims.remove(name, ns);
        });
      },
      async setOwnerReferences(ns, name, uid, rv, refs) {
        world.write("setClaimOwners", name, () => world.setOwners(world.claims, ns, name, uid, rv, refs));
      },
    };
    const versions: VersionControl = {
      async create(v: PetSetVersion) {
        const name = v.metadata.name ?? "";
        world.write("createVersion", name, () => {
          if (world.versions.live(name, v.metadata.namespace))
            throw alreadyExists("petsetversions.petset.dev", name);
          world.versions.put({
            ...structuredClone(v),
            metadata: { ...v.metadata, uid: `uid-${name}`, resourceVersion: world.nextRv() },
          } as KubernetesObject);
        });
      },
      async delete(ns, name, uid, resourceVersion) {
        world.write("deleteVersion", name, () => {
          const current = world.versions.live(name, ns);
          if (current === undefined) return; // NotFound counts as done (VersionControl contract)
          checkDeletePreconditions("petsetversions.petset.dev", current, uid, resourceVersion);
          world.versions.remove(name, ns);
        });
      },
      async recordStatus(ns, name, rv, st) {
        return world.write("recordVersionStatus", name, () => {
          const v = world.versions.live(name, ns);
          if (v === undefined) return {}; // NotFound counts as done (VersionControl contract)
          if (!world.versionStatusSubresource) throw new VersionStatusSubresourceMissing();
          checkResourceVersion("petsetversions.petset.dev", v, rv);
          const resourceVersion = world.nextRv();
          world.versions.put({
            ...v,
            metadata: { ...v.metadata, resourceVersion },
            status: structuredClone(st),
          } as KubernetesObject);
          return { resourceVersion };
        });
      },
      async adopt(ns, name, rv, owner) {
        world.write("adoptVersion", name, () => {
          const v = world.versions.live(name, ns);
          world.setOwners(world.versions, ns, name, v?.metadata?.uid ?? "", rv, [owner]);
        });
      },
    };
    const status: StatusUpdater = {
      async update(ns, name, rv, st) {
        world.write("status", name, () => {
          const ps = world.petSets.live(name, ns);
          if (ps === undefined) throw notFound("petsets.petset.dev", name);
          checkResourceVersion("petsets.petset.dev", ps, rv);
          world.statuses.push(structuredClone(st));
          world.petSets.put({
            ...ps,
            metadata: { ...ps.metadata, resourceVersion: world.nextRv() },
            status: st,
          } as KubernetesObject);
        });
      },
    };
    const petSets: PetSetWriter & PetSetReader = {
      // The precondition and a new resourceVersion; the spec itself is not rewritten here.
      async patch(ns, name, rv) {
        return world.write("patchPetSet", name, () => {
          const ps = world.petSets.live(name, ns);
          if (ps === undefined) throw notFound("petsets.petset.dev", name);
          checkResourceVersion("petsets.petset.dev", ps, rv);
          const resourceVersion = world.nextRv();
          world.petSets.put({ ...ps, metadata: { ...ps.metadata, resourceVersion } });
          return resourceVersion;
        });
      },
      async getFresh(ns, name) {
        const ps = world.petSets.live(name, ns);
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
      // Resends without a wait: the fake world answers at once.
      resend: { delaysMs: [0, 0, 0, 0], budgetMs: 1_000 },
    };
  }

  /** A merge patch of a pod based on `rv` (409 when it moved on, 404 when gone). */
  private patchPod(ns: string, name: string, rv: string, change: (pod: V1Pod) => V1Pod): void {
    const pod = this.pods.live(name, ns);
    if (pod === undefined) throw notFound("pods", name);
    checkResourceVersion("pods", pod, rv);
    const next = change(structuredClone(pod));
    this.pods.put({ ...next, metadata: { ...next.metadata, resourceVersion: this.nextRv() } });
  }

  /** A write to a pod: a new resourceVersion, as the API gives it. */
  bumpPod(name: string, ns: string): void {
    const pod = this.pods.live(name, ns);
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
    const obj = cache.live(name, ns);
    if (!obj) return;
    if (obj.metadata?.uid !== uid)
      throw apiError(422, "Invalid", `${name}: metadata.uid: field is immutable`);
    checkResourceVersion(cache.name, obj, rv);
    const metadata = { ...obj.metadata, resourceVersion: this.nextRv() };
    if (refs === null) delete metadata.ownerReferences;
    else metadata.ownerReferences = refs;
    cache.put({ ...obj, metadata });
  }

  /** The kubelet's part: every pod Running and Ready. */
  /** Each pod replaced by a Ready copy (an informer hands out a new object per change). */
  makePodsReady(): void {
    const at = new Date(this.now - 60_000);
    for (const old of this.pods.liveList()) {
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
