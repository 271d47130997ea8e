/**
 * The invariant monitor's rules, fed by what the watches deliver (invariant-monitor.ts wires
 * the streams); pure over its inputs and an injected clock, so planted event sequences test
 * each rule (test/unit/support/invariant-rules.test.ts).
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
 *
 * Relists: the first pod list is the baseline (whatever exists when the monitor starts). A
 * later list (the watch broke or answered 410) is compared with what the monitor held: pods
 * that changed are judged as modified, pods gone as deleted, then pods new to it as created
 * (by ordinal), at the relist's time but judged against every spec seen since the gap began
 * (the move happened at an unknown time within it). Deletions come first, the order most
 * favourable to the controller, so a gap never invents a violation; a breach the final state
 * still shows (three contents, two pods of one pet, a pet created above an unavailable one,
 * pets down beyond maxUnavailable) is reported.
 */

import type { V1Pod } from "@kubernetes/client-node";
import { PetSetSchema } from "../../src/api/index.js";
import { type ResolvedSpec, resolveSpec } from "../../src/controller/planner/plan-context.js";
import { isAvailable, isRunningAndReady, isTerminating } from "../../src/controller/planner/pod-health.js";
import { type PodView, podViewFromV1Pod } from "../../src/controller/planner/views.js";

export interface Violation {
  rule: "versions" | "one-pod-per-pet" | "maxUnavailable" | "ordered-ready" | "frozen" | "claims";
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
  /** Pod lists after the first (the watch broke or answered 410): each one judged. */
  relists: number;
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
  /** The pod's uid (two pods of one pet differ here). */
  uid: string;
}

/** A change of the PetSet's status as the watch saw it. */
export interface StatusSnapshot {
  at: number;
  currentVersion: number | undefined;
  updateVersion: number | undefined;
  progressing: string | undefined;
  available: string | undefined;
}

type Judge = (spec: ResolvedSpec) => string | undefined;
interface Pending {
  at: number;
  /** A move replayed from a relist happened at an unknown time since `from` (the last event before the gap). */
  from: number;
  rule: Violation["rule"];
  judge: Judge;
}

export interface JudgeOptions {
  petSet: string;
  /** How far apart a pod event and the spec that explains it may be seen. */
  windowMs?: number;
  /** Epoch ms (default Date.now). */
  now?: () => number;
}

/** What the streams feed and what the monitor reads back. */
export interface InvariantJudge {
  onPod(type: string, raw: V1Pod): void;
  /** A full pod list: the baseline the first time, a relist (judged) afterwards. */
  onPodList(items: V1Pod[]): void;
  onSpec(obj: unknown, deleted: boolean): void;
  moves(): PodMove[];
  statuses(): StatusSnapshot[];
  versionsSeen(): Set<number>;
  userDeletes(pod: string): void;
  immediate(): Violation[];
  stats(): MonitorStats;
  /** Every violation: the immediate ones and the spec-dependent ones judged now. */
  judge(): Violation[];
}

export function createInvariantJudge(opts: JudgeOptions): InvariantJudge {
  const { petSet: setName } = opts;
  const windowMs = opts.windowMs ?? 3_000;
  const clock = opts.now ?? Date.now;
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
    moves.push({ at, pod: pod.name, kind, version: pod.version, target: pod.targetVersion, uid: pod.uid });
  const statuses: StatusSnapshot[] = [];
  const stats: MonitorStats = {
    events: 0,
    podsCreated: 0,
    maxLiveContents: 0,
    maxUnavailableSeen: 0,
    relists: 0,
  };

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

  /** While a relist is replayed: when the gap began (the last pod event or list before it). */
  let gapFrom: number | undefined;
  let lastPodAt = clock();
  const defer = (at: number, rule: Violation["rule"], judge: Judge) =>
    pending.push({ at, from: gapFrom ?? at, rule, judge });

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
    const now = clock();
    if (gapFrom === undefined) lastPodAt = now;
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
        at: clock(),
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
    specs.push({ from: clock(), spec: parsed?.success ? resolveSpec(parsed.data) : undefined });
  };

  let listed = false;
  const onPodList = (items: V1Pod[]) => {
    if (listed) {
      relist(items);
      return;
    }
    listed = true;
    lastPodAt = clock();
    pods.clear();
    for (const p of items) {
      pods.set(p.metadata?.uid ?? "", p);
      const v = podViewFromV1Pod(p);
      if (isRunningAndReady(v)) everReady.add(v.uid);
      lastSeen.set(v.ordinal, { hash: v.hash, wasReady: everReady.has(v.uid), at: clock() });
    }
    checkImmediate(clock(), undefined);
  };

  /** What happened while the watch was down, replayed as events (see the header). */
  const relist = (items: V1Pod[]) => {
    stats.relists++;
    gapFrom = lastPodAt;
    const now = new Map(items.map((p) => [p.metadata?.uid ?? "", p]));
    for (const [uid, p] of now) {
      const old = pods.get(uid);
      if (old && old.metadata?.resourceVersion !== p.metadata?.resourceVersion) onPod("MODIFIED", p);
    }
    for (const [uid, old] of [...pods]) if (!now.has(uid)) onPod("DELETED", old);
    const created = [...now].filter(([uid]) => !pods.has(uid)).map(([, p]) => p);
    for (const p of created.sort((a, b) => podViewFromV1Pod(a).ordinal - podViewFromV1Pod(b).ordinal))
      onPod("ADDED", p);
    gapFrom = undefined;
    lastPodAt = clock();
  };

  /** Specs in force at any time within the window around [from, at]. */
  const specsAround = (from: number, at: number): ResolvedSpec[] => {
    const out: ResolvedSpec[] = [];
    specs.forEach((s, i) => {
      const until = specs[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      if (s.spec !== undefined && s.from <= at + windowMs && until >= from - windowMs) out.push(s.spec);
    });
    return out;
  };

  return {
    onPod,
    onPodList,
    onSpec: setSpec,
    userDeletes: (pod) => userDeletions.add(pod),
    immediate: () => [...violations],
    moves: () => [...moves],
    versionsSeen: () => new Set(seen),
    statuses: () => [...statuses],
    stats: () => ({ ...stats }),
    judge() {
      const judged: Violation[] = [...violations];
      for (const p of pending) {
        const around = specsAround(p.from, p.at);
        const verdicts = around.map((s) => p.judge(s));
        if (around.length === 0 || verdicts.some((v) => v === undefined)) continue;
        judged.push({ rule: p.rule, at: new Date(p.at).toISOString(), message: verdicts[0] ?? "" });
      }
      return judged.sort((a, b) => a.at.localeCompare(b.at));
    },
  };
}
