/**
 * Watches one PetSet and its pods for a whole test and records every breach of SPEC rules 2
 * and 3 a user could observe. `stop()` returns the violations; each rollout test asserts none.
 *
 * The rules live in invariant-rules.ts (pure, unit-tested with planted events); this module
 * lists and watches the PetSet and its pods and feeds them in.
 *
 * Rules (docs/rollouts.md, "Invariants the tests hold the controller to"):
 * - versions: never more than two contents (`petset.dev/hash`) among the set's pod objects at
 *   once, counting every pod object that exists: terminating ones and ones just created and not
 *   yet Ready. (Hashes, not version numbers: a rollback relabels pods to a new number with the
 *   same content, which is no third version.)
 * - one-pod-per-pet: never two pod objects for one ordinal at once.
 * - maxUnavailable (RollingUpdate): when a pod of a pet in range goes from available to not
 *   (deletion asked, or images patched in place), at most maxUnavailable pets are unavailable,
 *   "unavailable" exactly as the planner says (missing, terminating, not Running+Ready, Ready
 *   for less than minReadySeconds, in-place patch not run yet: `isAvailable` is the planner's).
 *   Pods outside [start, start+replicas) are condemned (scale-down) and not counted.
 * - ordered-ready (OrderedReady): pet N is created only when every lower pet in range exists,
 *   is not terminating and is available.
 * - frozen: a pet below the partition (RollingUpdate), or any pet while paused, never changes
 *   content: no in-place patch to another hash, and a pod that was Ready is never replaced by one
 *   of another hash. A pet created for the first time below the partition must run the content
 *   of the other pets below it.
 * - claims (volumeClaimUpdatePolicy InPlace, issue 26): a pet labelled with version N has every
 *   claim at N (request >= N's, N's labels), judged at `stop()` (claim-invariant-rules.ts).
 *
 * Spec-dependent rules are judged at `stop()` against every PetSet spec the monitor observed
 * within `windowMs` of the pod event: the pod watch and the PetSet watch are two streams with
 * no common order, and the controller acts on its own cache. A move is a violation only when no
 * spec seen around that time allows it (so lowering the partition or scaling is never blamed).
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { GROUP, Labels, PETSET_PLURAL, VERSION } from "../../src/api/index.js";
import { claimFeed, judgeClaimsOf } from "./claim-invariant-monitor.js";
import {
  createInvariantJudge,
  type MonitorStats,
  type PodMove,
  type StatusSnapshot,
  type Violation,
} from "./invariant-rules.js";

export type { MonitorStats, PodMove, StatusSnapshot, Violation } from "./invariant-rules.js";

export interface InvariantMonitor {
  /** Pod creations, deletions (asked), in-place patches and relabels so far. */
  moves(): PodMove[];
  /** Distinct (currentVersion, updateVersion, Progressing reason, Available) in order. */
  statuses(): StatusSnapshot[];
  /** Every `petset.dev/version` label seen on a pod. */
  versionsSeen(): Set<number>;
  /**
   * The test is about to delete this pod itself (a user action): its next deletion is logged but
   * not held against maxUnavailable, which limits the controller, not users.
   */
  userDeletes(pod: string): void;
  /** Violations found so far by the rules that need no spec. */
  immediate(): Violation[];
  stats(): MonitorStats;
  /** Stops the watches and returns every violation. */
  stop(): Promise<Violation[]>;
}

export interface MonitorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  petSet: string;
  /** How far apart a pod event and the spec that explains it may be seen. */
  windowMs?: number;
}

interface Stream {
  stop(): void;
  synced: Promise<void>;
}

interface ListResult {
  items: unknown[];
  resourceVersion: string;
}

/**
 * List, then watch from the list's resourceVersion; on 410 Gone or a broken stream, list
 * again. `onList` gets the full state, `onEvent` each change in order.
 */
function listWatch(
  kubeConfig: KubeConfig,
  path: string,
  params: Record<string, string>,
  list: () => Promise<ListResult>,
  onList: (items: unknown[]) => void,
  onEvent: (type: string, obj: unknown) => void,
): Stream {
  const watch = new Watch(kubeConfig);
  let stopped = false;
  let abort: AbortController | undefined;
  let rv = "";
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  const pause = () => new Promise((r) => setTimeout(r, 200));
  const relist = async (): Promise<void> => {
    while (!stopped) {
      try {
        const result = await list();
        rv = result.resourceVersion;
        onList(result.items);
        markSynced();
        return;
      } catch {
        await pause();
      }
    }
  };
  const run = async (): Promise<void> => {
    if (stopped) return;
    let gone = false;
    const done = (err: unknown) => {
      if (stopped) return;
      void (async () => {
        if (gone || err) {
          await pause();
          await relist();
        }
        await run();
      })();
    };
    abort = await watch.watch(
      path,
      { ...params, resourceVersion: rv, allowWatchBookmarks: true },
      (type: string, obj: { metadata?: { resourceVersion?: string } }) => {
        if (type === "ERROR") {
          gone = true;
          return;
        }
        const next = obj.metadata?.resourceVersion;
        if (next) rv = next;
        if (type !== "BOOKMARK") onEvent(type, obj);
      },
      done,
    );
    if (stopped) abort.abort();
  };
  void relist().then(run);
  return {
    synced,
    stop() {
      stopped = true;
      abort?.abort();
    },
  };
}

export async function startInvariantMonitor(opts: MonitorOptions): Promise<InvariantMonitor> {
  const { namespace, petSet: setName } = opts;
  const judge = createInvariantJudge({
    petSet: setName,
    ...(opts.windowMs !== undefined ? { windowMs: opts.windowMs } : {}),
  });
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const claimsFeed = claimFeed();
  const custom = opts.kubeConfig.makeApiClient(CustomObjectsApi);
  const labelSelector = `${Labels.petSet}=${setName}`;
  const podStream = listWatch(
    opts.kubeConfig,
    `/api/v1/namespaces/${namespace}/pods`,
    { labelSelector },
    async () => {
      const l = await core.listNamespacedPod({ namespace, labelSelector });
      return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
    },
    (items) => {
      for (const pod of items as V1Pod[]) claimsFeed.pod(pod);
      judge.onPodList(items as V1Pod[]);
    },
    (type, obj) => {
      claimsFeed.pod(obj as V1Pod);
      judge.onPod(type, obj as V1Pod);
    },
  );
  // Claims follow versions (issue 26): the claims of the set, judged at stop() (claim-invariant-rules.ts).
  const claimStream = listWatch(
    opts.kubeConfig,
    `/api/v1/namespaces/${namespace}/persistentvolumeclaims`,
    { labelSelector },
    async () => {
      const l = await core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector });
      return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
    },
    (items) => {
      for (const c of items as V1PersistentVolumeClaim[]) claimsFeed.claim(c, true);
    },
    (_type, obj) => claimsFeed.claim(obj as V1PersistentVolumeClaim),
  );
  const setStream = listWatch(
    opts.kubeConfig,
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PETSET_PLURAL}`,
    {},
    async () => {
      const l = (await custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PETSET_PLURAL,
      })) as { items?: unknown[]; metadata?: { resourceVersion?: string } };
      return { items: l.items ?? [], resourceVersion: l.metadata?.resourceVersion ?? "" };
    },
    (items) => {
      const mine = (items as { metadata?: { name?: string } }[]).find((o) => o.metadata?.name === setName);
      judge.onSpec(mine, mine === undefined);
    },
    (type, obj) => {
      if ((obj as { metadata?: { name?: string } }).metadata?.name === setName)
        judge.onSpec(obj, type === "DELETED");
    },
  );
  await Promise.all([podStream.synced, setStream.synced, claimStream.synced]);

  return {
    userDeletes: (pod) => judge.userDeletes(pod),
    immediate: () => judge.immediate(),
    moves: () => judge.moves(),
    versionsSeen: () => judge.versionsSeen(),
    statuses: () => judge.statuses(),
    stats: () => judge.stats(),
    async stop() {
      podStream.stop();
      setStream.stop();
      claimStream.stop();
      return [...judge.judge(), ...(await judgeClaimsOf(custom, namespace, setName, claimsFeed))];
    },
  };
}
