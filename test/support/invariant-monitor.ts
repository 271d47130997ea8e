/**
 * Watches one PetSet and its pods for a whole test and records every breach of SPEC rules 2
 * and 3 a user could observe. `stop()` returns the violations; each rollout test asserts none.
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
 *
 * Spec-dependent rules are judged at `stop()` against every PetSet spec the monitor observed
 * within `windowMs` of the pod event: the pod watch and the PetSet watch are two streams with
 * no common order, and the controller acts on its own cache. A move is a violation only when no
 * spec seen around that time allows it (so lowering the partition or scaling is never blamed).
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod, Watch } from "@kubernetes/client-node";
import { GROUP, Labels, PETSET_PLURAL, PetSetSchema, VERSION } from "../../src/api/index.js";
import { type ResolvedSpec, resolveSpec } from "../../src/controller/planner/plan-context.js";
import { isAvailable, isRunningAndReady, isTerminating } from "../../src/controller/planner/pod-health.js";
import { type PodView, podViewFromV1Pod } from "../../src/controller/planner/views.js";

export interface Violation {
  rule: "versions" | "one-pod-per-pet" | "maxUnavailable" | "ordered-ready" | "frozen";
  at: string;
  message: string;
}

export interface MonitorStats {
  /** Pod watch events seen. */
  events: number;
  podsCreated: number;
  /** Most distinct contents seen live at once. */
  maxLiveContents: number;
  /** Most pets in range unavailable at once after a move (judged, so read after stop()). */
  maxUnavailableSeen: number;
}

/** What happened to the set's pods, in watch order. */
export interface PodMove {
  at: number;
  pod: string;
  kind: "create" | "delete" | "patch" | "relabel" | "announce";
  /** Version label after the move (before it, for a delete). */
  version: number | undefined;
  /** Annotation petset.dev/target-version after the move. */
  target: number | undefined;
}

/** A change of the PetSet's status as the watch saw it. */
export interface StatusSnapshot {
  at: number;
  currentVersion: number | undefined;
  updateVersion: number | undefined;
  progressing: string | undefined;
  available: string | undefined;
}

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

type Judge = (spec: ResolvedSpec) => string | undefined;
interface Pending {
  at: number;
  rule: Violation["rule"];
  judge: Judge;
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
  const windowMs = opts.windowMs ?? 3_000;
  const violations: Violation[] = [];
  const pending: Pending[] = [];
  const specs: { from: number; spec: ResolvedSpec | undefined }[] = [];
  const pods = new Map<string, V1Pod>();
  /** Per ordinal, the content of its latest pod, whether that pod was ever Ready, and when it was last seen. */
  const lastSeen = new Map<number, { hash: string | undefined; wasReady: boolean; at: number }>();
  const everReady = new Set<string>();
  const moves: PodMove[] = [];
  const seen = new Set<number>();
  const userDeletions = new Set<string>();
  const logMove = (at: number, pod: PodView, kind: PodMove["kind"]) =>
    moves.push({ at, pod: pod.name, kind, version: pod.version, target: pod.targetVersion });
  const statuses: StatusSnapshot[] = [];
  const stats: MonitorStats = { events: 0, podsCreated: 0, maxLiveContents: 0, maxUnavailableSeen: 0 };

  const violate = (rule: Violation["rule"], at: number, message: string) =>
    violations.push({ rule, at: new Date(at).toISOString(), message });

  const views = (): PodView[] => [...pods.values()].map(podViewFromV1Pod);
  const byOrdinal = (all: PodView[]) => {
    const m = new Map<number, PodView>();
    for (const p of all) if (p.name === `${setName}-${p.ordinal}`) m.set(p.ordinal, p);
    return m;
  };
  const describe = (all: PodView[]) =>
    all
      .map(
        (p) =>
          `${p.name}@v${p.version ?? "?"}${isTerminating(p) ? "(terminating)" : isRunningAndReady(p) ? "" : "(not ready)"}`,
      )
      .sort()
      .join(", ");

  const checkImmediate = (now: number, added: PodView | undefined) => {
    const all = views();
    const contents = new Set(all.map((p) => p.hash ?? "<none>"));
    stats.maxLiveContents = Math.max(stats.maxLiveContents, contents.size);
    if (contents.size > 2) {
      violate("versions", now, `${contents.size} contents live at once: ${describe(all)}`);
    }
    if (added !== undefined) {
      const twins = all.filter((p) => p.ordinal === added.ordinal && p.uid !== added.uid);
      if (twins.length > 0) {
        violate(
          "one-pod-per-pet",
          now,
          `pod ${added.name} (uid ${added.uid}) created while ${twins.map((t) => `${t.name} (uid ${t.uid})`).join(", ")} exists`,
        );
      }
    }
  };

  const defer = (at: number, rule: Violation["rule"], judge: Judge) => pending.push({ at, rule, judge });

  /** A pod in range stopped being available because of a move: judge against maxUnavailable. */
  const onMove = (now: number, before: PodView, after: PodView | undefined, what: string) => {
    const all = byOrdinal(views());
    defer(now, "maxUnavailable", (spec) => {
      if (!spec.rollingUpdate || !spec.ordinals.includes(before.ordinal)) return undefined;
      if (!isAvailable(before, spec.minReadyMs, now)) return undefined;
      const down = spec.ordinals.filter((o) => {
        const p = o === before.ordinal ? after : all.get(o);
        return p === undefined || isTerminating(p) || !isAvailable(p, spec.minReadyMs, now);
      });
      stats.maxUnavailableSeen = Math.max(stats.maxUnavailableSeen, down.length);
      if (down.length <= spec.maxUnavailable) return undefined;
      return `${what}: ${down.length} pets unavailable (${down.join(",")}), maxUnavailable ${spec.maxUnavailable}; pods: ${describe([...all.values()])}`;
    });
  };

  const frozen = (spec: ResolvedSpec, ordinal: number) =>
    spec.paused || (spec.rollingUpdate && ordinal < spec.partitionOrdinal);

  const onAdded = (now: number, pod: PodView) => {
    stats.podsCreated++;
    const all = byOrdinal(views());
    defer(now, "ordered-ready", (spec) => {
      if (!spec.orderedReady || !spec.ordinals.includes(pod.ordinal)) return undefined;
      const blocking = spec.ordinals.filter((o) => {
        if (o >= pod.ordinal) return false;
        const p = all.get(o);
        return p === undefined || isTerminating(p) || !isAvailable(p, spec.minReadyMs, now);
      });
      if (blocking.length === 0) return undefined;
      return `pod ${pod.name} created while lower pets ${blocking.join(",")} are not available; pods: ${describe([...all.values()])}`;
    });
    const last = lastSeen.get(pod.ordinal);
    const belowHashes = new Set(
      [...all.values()].filter((p) => p.ordinal < pod.ordinal && !isTerminating(p)).map((p) => p.hash),
    );
    // A pet scaled away and back is a new pet, not its old pod recreated (the soak found this).
    const scaledAway =
      last !== undefined &&
      specs.some((s, i) => {
        const until = specs[i + 1]?.from ?? Number.POSITIVE_INFINITY;
        return s.spec !== undefined && !s.spec.ordinals.includes(pod.ordinal) && until >= last.at - windowMs;
      });
    defer(now, "frozen", (spec) => {
      if (!frozen(spec, pod.ordinal)) return undefined;
      if (last !== undefined && !scaledAway) {
        if (!last.wasReady || last.hash === pod.hash) return undefined;
        return `pod ${pod.name} recreated with content ${pod.hash} (version ${pod.version}), its Ready predecessor ran ${last.hash}${spec.paused ? " while paused" : ` below the partition (ordinal ${spec.partitionOrdinal})`}`;
      }
      if (spec.paused || belowHashes.size === 0 || belowHashes.has(pod.hash)) return undefined;
      return `new pet ${pod.name} created below the partition at version ${pod.version}, lower pets run ${[...belowHashes].join(",")}`;
    });
  };

  const onPod = (type: string, raw: V1Pod) => {
    const now = Date.now();
    stats.events++;
    const uid = raw.metadata?.uid ?? "";
    const before = pods.has(uid) ? podViewFromV1Pod(pods.get(uid) as V1Pod) : undefined;
    if (type === "DELETED") pods.delete(uid);
    else pods.set(uid, raw);
    const after = type === "DELETED" ? undefined : podViewFromV1Pod(raw);
    if (after?.version !== undefined) seen.add(after.version);
    if (after !== undefined && before === undefined) {
      logMove(now, after, "create");
      onAdded(now, after);
    }
    if (before !== undefined && after !== undefined && !isTerminating(after)) {
      if (before.hash !== after.hash) logMove(now, after, "patch");
      else if (before.version !== after.version) logMove(now, after, "relabel");
      else if (before.targetVersion !== after.targetVersion) logMove(now, after, "announce");
    }
    if (before !== undefined && !isTerminating(before) && (after === undefined || isTerminating(after))) {
      logMove(now, before, "delete");
      if (!userDeletions.delete(before.name))
        onMove(now, before, after, `pod ${before.name} (version ${before.version}) deleted`);
    } else if (
      before !== undefined &&
      after !== undefined &&
      before.hash !== after.hash &&
      !isTerminating(after)
    ) {
      onMove(now, before, after, `pod ${after.name} patched in place to version ${after.version}`);
      defer(now, "frozen", (spec) =>
        frozen(spec, after.ordinal) && isRunningAndReady(before)
          ? `pod ${after.name} moved in place from ${before.hash} to ${after.hash} (version ${after.version})${spec.paused ? " while paused" : " below the partition"}`
          : undefined,
      );
    }
    if (after !== undefined) {
      if (isRunningAndReady(after)) everReady.add(uid);
      lastSeen.set(after.ordinal, { hash: after.hash, wasReady: everReady.has(uid), at: now });
    } else if (before !== undefined) {
      const last = lastSeen.get(before.ordinal);
      if (last) last.at = now;
    }
    checkImmediate(now, before === undefined ? after : undefined);
  };

  const setSpec = (obj: unknown, deleted: boolean) => {
    const parsed = deleted ? undefined : PetSetSchema.safeParse(obj);
    if (parsed?.success) {
      const st = parsed.data.status;
      const cond = (t: string) => st?.conditions.find((c) => c.type === t);
      const snap: StatusSnapshot = {
        at: Date.now(),
        currentVersion: st?.currentVersion,
        updateVersion: st?.updateVersion,
        progressing: cond("Progressing")?.reason,
        available: cond("Available")?.status,
      };
      const last = statuses[statuses.length - 1];
      const same = (a: StatusSnapshot, b: StatusSnapshot) =>
        a.currentVersion === b.currentVersion &&
        a.updateVersion === b.updateVersion &&
        a.progressing === b.progressing &&
        a.available === b.available;
      if (last === undefined || !same(last, snap)) statuses.push(snap);
    }
    specs.push({ from: Date.now(), spec: parsed?.success ? resolveSpec(parsed.data) : undefined });
  };

  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
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
      pods.clear();
      for (const p of items as V1Pod[]) {
        pods.set(p.metadata?.uid ?? "", p);
        const v = podViewFromV1Pod(p);
        if (isRunningAndReady(v)) everReady.add(v.uid);
        lastSeen.set(v.ordinal, { hash: v.hash, wasReady: everReady.has(v.uid), at: Date.now() });
      }
      checkImmediate(Date.now(), undefined);
    },
    (type, obj) => onPod(type, obj as V1Pod),
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
      setSpec(mine, mine === undefined);
    },
    (type, obj) => {
      if ((obj as { metadata?: { name?: string } }).metadata?.name === setName)
        setSpec(obj, type === "DELETED");
    },
  );
  await Promise.all([podStream.synced, setStream.synced]);

  /** Specs in force at any time within the window around `at`. */
  const specsAround = (at: number): ResolvedSpec[] => {
    const out: ResolvedSpec[] = [];
    specs.forEach((s, i) => {
      const until = specs[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      if (s.spec !== undefined && s.from <= at + windowMs && until >= at - windowMs) out.push(s.spec);
    });
    return out;
  };

  return {
    userDeletes: (pod) => userDeletions.add(pod),
    immediate: () => [...violations],
    moves: () => [...moves],
    versionsSeen: () => new Set(seen),
    statuses: () => [...statuses],
    stats: () => ({ ...stats }),
    async stop() {
      podStream.stop();
      setStream.stop();
      const judged: Violation[] = [...violations];
      for (const p of pending) {
        const around = specsAround(p.at);
        const verdicts = around.map((s) => p.judge(s));
        if (around.length === 0 || verdicts.some((v) => v === undefined)) continue;
        judged.push({ rule: p.rule, at: new Date(p.at).toISOString(), message: verdicts[0] ?? "" });
      }
      return judged.sort((a, b) => a.at.localeCompare(b.at));
    },
  };
}
