/**
 * Read-only caches filled by watches. client-node's informer stops on a non-410 error; this
 * wrapper restarts it with backoff and exposes `synced`, so the controller never syncs from
 * an empty cache after a start or restart. One writer (the informer), many readers.
 *
 * Every list, and every watch until its response headers, is bounded by `requestTimeoutMs`:
 * client-node sets no limit on either, so one request that a peer accepts and never answers
 * (a dead load balancer, a partition that drops packets) would stall that cache forever and
 * every rollout with it (test/integration/network-faults.test.ts, blackhole).
 */
import {
  type Configuration,
  CoreV1Api,
  CustomObjectsApi,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ListPromise,
  ListWatch,
  type ObjectCache,
  StorageV1Api,
  type V1Node,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1StorageClass,
} from "@kubernetes/client-node";
import { GROUP, Labels, PETSET_PLURAL, VERSION, VERSION_PLURAL } from "../api/names.js";
import type { Logger } from "../util/logger.js";
import { byControllerUid, byLabel, byNamePrefix, CacheIndexes, type KeysOf } from "./cache-index.js";
import {
  dropManagedFields,
  internEnvelope,
  internStrings,
  shareSpecParts,
  trimClaim,
  trimNode,
  trimPetSetManagedFields,
  trimPod,
} from "./cache-trim.js";
import { makeApiClientWith } from "./lease-guard.js";
import { LIST_PAGE_SIZE, listInPages, type PageFetcher, pageQuery } from "./paged-list.js";
import { parsedInPlace, parsePetSetInPlace, parseVersionInPlace } from "./parsed-cache.js";
import { StreamWatch } from "./watch-transport.js";

export type Watched<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

export interface ResourceCache<T extends KubernetesObject> extends ObjectCache<T> {
  readonly name: string;
  /**
   * Called after the cache took the event. `earlier`: the object's state before an update, in
   * caches that keep indexes (`INDEXES`); undefined otherwise.
   */
  onChange(cb: (obj: T, kind: "add" | "update" | "delete", earlier: T | undefined) => void): void;
  /**
   * Objects of `namespace` labelled `petset.dev/petset=<petSet>` (indexed, not a scan). Each
   * cache keeps only the indexes something reads (`INDEXES`); another throws.
   */
  ofPetSet(namespace: string, petSet: string): readonly T[];
  /** Objects of `namespace` whose controller ownerReference has `uid` (indexed: pods, claims). */
  controlledBy(namespace: string, uid: string): readonly T[];
  /** Objects of `namespace` whose name starts with `<prefix>-` (indexed: pods, claims). */
  namedUnder(namespace: string, prefix: string): readonly T[];
  /** Resolves once the first list has been loaded. */
  readonly synced: Promise<void>;
  /** Events taken since the start, by type (listed objects count as adds). */
  readonly eventCounts: Readonly<Record<"add" | "update" | "delete", number>>;
  stop(): Promise<void>;
}

export interface CacheOptions {
  kubeConfig: KubeConfig;
  namespace?: string | undefined;
  logger: Logger;
  restartDelayMs?: number;
  /** Limit of a list, and of a watch until its headers (default 30 s, half kube's request timeout). */
  requestTimeoutMs?: number;
}

export const DEFAULT_CACHE_REQUEST_TIMEOUT_MS = 30_000;

/** What informers watch through (watch-transport.ts): the headers of a watch must come within `headersTimeoutMs`. */
interface WatchSource {
  kubeConfig: KubeConfig;
  headersTimeoutMs: number;
}

/** client-node's `makeInformer`, on `StreamWatch` instead of its node-fetch `Watch`. */
function makeInformer<T extends KubernetesObject>(
  source: WatchSource,
  path: string,
  list: ListPromise<T>,
  labelSelector?: string,
): Watched<T> {
  const watch = new StreamWatch(source.kubeConfig, source.headersTimeoutMs);
  return new ListWatch<T>(path, watch, list, false, labelSelector);
}

function listApi<T>(opts: CacheOptions, apiClass: new (config: Configuration) => T): T {
  const ms = opts.requestTimeoutMs ?? DEFAULT_CACHE_REQUEST_TIMEOUT_MS;
  return makeApiClientWith(opts.kubeConfig, apiClass, (ctx) => ctx.setSignal(AbortSignal.timeout(ms)));
}

export type IndexName = "ofPetSet" | "controlledBy" | "namedUnder";

export const KEYS: Record<IndexName, KeysOf> = {
  ofPetSet: byLabel(Labels.petSet),
  controlledBy: byControllerUid,
  namedUnder: byNamePrefix,
};

/**
 * The indexes each cache keeps: what syncs read (sync.ts, adoption.ts, parsed-cache.ts).
 * Each costs memory per object (issue 29), so a cache nothing queries keeps none.
 */
export const INDEXES: Record<string, readonly IndexName[]> = {
  pods: ["ofPetSet", "controlledBy", "namedUnder"],
  persistentvolumeclaims: ["ofPetSet", "controlledBy", "namedUnder"],
  petsetversions: ["ofPetSet"],
};

function startCache<T extends KubernetesObject>(
  name: string,
  informer: Watched<T>,
  opts: CacheOptions,
  trim: (obj: T) => void,
): ResourceCache<T> {
  let stopped = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  const log = opts.logger.child({ cache: name });
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  let failedSinceStart = false;
  // One pending restart at most: a second start() while a watch runs would abort it, and
  // client-node reports that abort as one more error.
  const restartLater = (err: unknown, what: string) => {
    if (stopped || restartTimer) return;
    failures++;
    const delay = Math.min(30_000, (opts.restartDelayMs ?? 200) * 2 ** Math.min(failures, 8));
    log.warn({ err: errorMessage(err), delayMs: delay }, `${what}; restarting`);
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      start();
    }, delay);
  };
  const start = () => {
    failedSinceStart = false;
    informer.start().then(
      () => {
        // start() also resolves after a failed list (the error callback ran): not synced then.
        if (failedSinceStart) return;
        failures = 0;
        markSynced();
      },
      // start() rejects, without calling the error callbacks, when something outside its
      // try blocks throws (a credential plugin in applyToFetchOptions, a throwing handler
      // during the list): nothing in client-node retries that, so we must.
      (err: unknown) => restartLater(err, "informer start failed"),
    );
  };
  informer.on("error", (err: unknown) => {
    if (stopped) return;
    failedSinceStart = true;
    restartLater(err, "watch failed");
  });
  const kept = INDEXES[name] ?? [];
  const indexes = new CacheIndexes<T>(kept.map((i) => KEYS[i]));
  type Listener = (obj: T, kind: "add" | "update" | "delete", earlier: T | undefined) => void;
  const listeners: Listener[] = [];
  const eventCounts = { add: 0, update: 0, delete: 0 };
  // One handler per kind: the cache keeps what it trims (cache-trim.ts), the indexes follow,
  // then the listeners run, told the object's earlier state.
  const changed = (kind: "add" | "update") => (o: T) => {
    eventCounts[kind]++;
    trim(o);
    const earlier = indexes.put(o);
    for (const l of listeners) l(o, kind, earlier);
  };
  informer.on("add", changed("add"));
  informer.on("update", changed("update"));
  informer.on("delete", (o) => {
    eventCounts.delete++;
    indexes.remove(o);
    for (const l of listeners) l(o, "delete", undefined);
  });
  const lookup = (index: IndexName, ns: string, key: string): T[] => {
    const i = kept.indexOf(index);
    if (i < 0) throw new Error(`the ${name} cache keeps no ${index} index (informers.ts INDEXES)`);
    return indexes.list(i, ns, key);
  };
  start();
  return {
    name,
    synced,
    eventCounts,
    get: (n, ns) => informer.get(n, ns),
    list: (ns) => informer.list(ns),
    ofPetSet: (ns, petSet) => lookup("ofPetSet", ns, petSet),
    controlledBy: (ns, uid) => lookup("controlledBy", ns, uid),
    namedUnder: (ns, prefix) => lookup("namedUnder", ns, prefix),
    onChange(cb) {
      listeners.push(cb);
    },
    async stop() {
      stopped = true;
      if (restartTimer) clearTimeout(restartTimer);
      await informer.stop();
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function customPath(plural: string, namespace?: string): string {
  return namespace
    ? `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`
    : `/apis/${GROUP}/${VERSION}/${plural}`;
}

/** PetSets: managedFields trimmed, then parsed and held once (parsed-cache.ts). */
export function trimPetSet(obj: KubernetesObject): void {
  if (parsedInPlace(obj)) return; // a listed object: its page's transform ran already
  trimPetSetManagedFields(obj);
  internStrings((obj as { spec?: unknown }).spec);
  internEnvelope(obj);
  parsePetSetInPlace(obj);
  shareSpecParts(obj);
}

/** PetSetVersions: managedFields dropped, then parsed and held once (parsed-cache.ts). */
export function trimVersion(obj: KubernetesObject): void {
  if (parsedInPlace(obj)) return;
  dropManagedFields(obj);
  internStrings((obj as { spec?: unknown }).spec);
  internEnvelope(obj);
  parseVersionInPlace(obj);
  shareSpecParts(obj);
}

function customInformer(opts: CacheOptions, watches: WatchSource, plural: string): Watched<KubernetesObject> {
  const api = listApi(opts, CustomObjectsApi);
  const ns = opts.namespace;
  const trim = plural === PETSET_PLURAL ? trimPetSet : trimVersion;
  const page: PageFetcher<KubernetesObject> = async (limit, token) => {
    const query = { group: GROUP, version: VERSION, plural, ...pageQuery(limit, token) };
    return (await (ns
      ? api.listNamespacedCustomObject({ ...query, namespace: ns })
      : api.listClusterCustomObject(query))) as KubernetesListObject<KubernetesObject>;
  };
  return makeInformer(watches, customPath(plural, ns), () => listInPages(page, LIST_PAGE_SIZE, trim));
}

export interface ControllerCaches {
  petSets: ResourceCache<KubernetesObject>;
  versions: ResourceCache<KubernetesObject>;
  pods: ResourceCache<V1Pod>;
  claims: ResourceCache<V1PersistentVolumeClaim>;
  /**
   * Nodes, trimmed to their Ready condition (node-failure.ts). Not awaited at start: a
   * controller without the RBAC to list nodes judges no pet on a lost node.
   */
  nodes?: ResourceCache<V1Node>;
  /** StorageClasses (storage-class-watch.ts); not awaited at start, like nodes. */
  storageClasses?: ResourceCache<V1StorageClass>;
}

/** Starts the four caches the controller reads. Pods and claims are limited to petset's own. */
export function startControllerCaches(opts: CacheOptions): ControllerCaches {
  const core = listApi(opts, CoreV1Api);
  const watches: WatchSource = {
    kubeConfig: opts.kubeConfig,
    headersTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_CACHE_REQUEST_TIMEOUT_MS,
  };
  const ns = opts.namespace;
  const selector = Labels.petSet;
  const scoped = (resource: string) => (ns ? `/api/v1/namespaces/${ns}/${resource}` : `/api/v1/${resource}`);
  const labelled = (limit: number, token: string | undefined) => ({
    labelSelector: selector,
    ...pageQuery(limit, token),
  });
  const pods = makeInformer<V1Pod>(
    watches,
    scoped("pods"),
    () =>
      listInPages<V1Pod>(
        (limit, token) =>
          ns
            ? core.listNamespacedPod({ ...labelled(limit, token), namespace: ns })
            : core.listPodForAllNamespaces(labelled(limit, token)),
        LIST_PAGE_SIZE,
        trimPod,
      ),
    selector,
  );
  const claims = makeInformer<V1PersistentVolumeClaim>(
    watches,
    scoped("persistentvolumeclaims"),
    () =>
      listInPages<V1PersistentVolumeClaim>(
        (limit, token) =>
          ns
            ? core.listNamespacedPersistentVolumeClaim({ ...labelled(limit, token), namespace: ns })
            : core.listPersistentVolumeClaimForAllNamespaces(labelled(limit, token)),
        LIST_PAGE_SIZE,
        trimClaim,
      ),
    selector,
  );
  return {
    petSets: startCache("petsets", customInformer(opts, watches, PETSET_PLURAL), opts, trimPetSet),
    versions: startCache("petsetversions", customInformer(opts, watches, VERSION_PLURAL), opts, trimVersion),
    pods: startCache("pods", pods, opts, trimPod),
    claims: startCache("persistentvolumeclaims", claims, opts, trimClaim),
    nodes: startCache("nodes", nodeInformer(opts, watches), opts, trimNode),
    storageClasses: startCache(
      "storageclasses",
      storageClassInformer(opts, watches),
      opts,
      dropManagedFields,
    ),
  };
}

/** Every StorageClass (cluster-scoped): claim growth reads allowVolumeExpansion (claim-updates.ts). */
function storageClassInformer(opts: CacheOptions, watches: WatchSource): Watched<V1StorageClass> {
  const storage = listApi(opts, StorageV1Api);
  return makeInformer<V1StorageClass>(watches, "/apis/storage.k8s.io/v1/storageclasses", () =>
    listInPages<V1StorageClass>(
      (limit, token) => storage.listStorageClass(pageQuery(limit, token)),
      LIST_PAGE_SIZE,
      dropManagedFields,
    ),
  );
}

/** Every node (cluster-scoped), trimmed to what lost-node decisions read (cache-trim.ts). */
function nodeInformer(opts: CacheOptions, watches: WatchSource): Watched<V1Node> {
  const core = listApi(opts, CoreV1Api);
  return makeInformer<V1Node>(watches, "/api/v1/nodes", () =>
    listInPages<V1Node>((limit, token) => core.listNode(pageQuery(limit, token)), LIST_PAGE_SIZE, trimNode),
  );
}
