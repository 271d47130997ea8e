/**
 * The judge of node faults (node-faults.ts), from samples of the fenced PetSet's pods, its nodes
 * and the fence records, every 500 ms:
 *  - twoPodsOneIdentity (must be 0): a pod gone from the API while its node was lost keeps
 *    running there (a "ghost") until the node comes back (its kubelet kills it) unless its fence
 *    had Succeeded (the node can no longer run it). A ghost not fenced while a pod of the same
 *    pet is in the API on a node is two pods of one pet that could both run.
 *  - unrecovered: a lost pet not Ready again (a pod of it Ready on a node that is not lost: the
 *    moved pod, or the old one once its node is back) within its bound. For an acked fence: node
 *    monitor grace + afterSeconds + SLACK of *controller time*, the time from the loss to Ready
 *    during which some replica served (led with synced caches: node-serving.ts) and the fencer
 *    was not holding its answer (from its draw to its ack written). Time with no controller (a
 *    killed leader's Lease running out, a replacement starting, a frozen leader) or waiting for
 *    the fencer is the run's faults, not the product's. Without serving data (unit tests): wall
 *    time, grace + afterSeconds + the answer's delay (3 s) + SLACK. For a failed or hung fence
 *    (the pet stays): the node's return + SLACK, wall time. SLACK (45 s) is the kubelet's time to
 *    start a pod plus the syncs and status writes under the run's 429/503 bursts.
 * It also keeps a timeline (findings.timeline: seconds after the run's first loss): each loss and
 * return, each node's Ready status as sampled, each fence record's phase and attempt, the
 * fencer's answers, each pod of the set appearing, Ready or gone. It is what a reader of an
 * unrecovered pet looks at first (when did the node read Unknown, when did the fence start).
 */
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { HookAnnotations, type HookRecord } from "../../src/api/index.js";
import { coveredMs, type Interval } from "./node-serving.js";

export const SLACK_SECONDS = 45;
const AFTER_SECONDS = 2;
const ANSWER_DELAY_SECONDS = 3;

export interface NodeLoss {
  node: string;
  pet: string;
  uid: string;
  lostAt: number;
  backAt?: number;
}

export interface NodeFindings {
  nodeLosses: number;
  fences: { acked: number; failed: number; hung: number };
  twoPodsOneIdentity: string[];
  unrecovered: string[];
  /** Pets moved: pods gone from the API while their node was lost (fenced ones). */
  moved: number;
  /** Each loss: how long until its pet was Ready again, of it controller time and the fencer's. */
  recoveries: string[];
  /** The slowest recovery (ms after the loss) and the harness's own errors. */
  slowestRecoveryMs: number;
  errors: string[];
  /** What happened, in order: `+<s after the first loss> <event>` (see the header). */
  timeline: string[];
}

interface Ghost {
  name: string;
  uid: string;
  node: string;
  fenced: boolean;
}

/** `<id>#<attempt>` of a handshake annotation (request or ack), for the timeline. */
function handshake(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as { id?: unknown; attempt?: unknown };
    return `${String(v.id)}#${String(v.attempt ?? "?")}`;
  } catch {
    return "unparsable";
  }
}

const isReady = (p: V1Pod) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export class NodeJudge {
  private readonly lostNodes = new Set<string>();
  private readonly losses: NodeLoss[] = [];
  private readonly recovered = new Map<NodeLoss, number>();
  private readonly acked = new Set<string>();
  /** The fencer holds the answer: from its draw to its answer written (per pod uid). */
  private readonly fencerTurns: { uid: string; from: number; to?: number }[] = [];
  private ghosts: Ghost[] = [];
  private lastPods = new Map<string, V1Pod>();
  private readonly succeeded = new Set<string>();
  private readonly twins = new Set<string>();
  private moved = 0;
  private readonly events: { at: number; what: string }[] = [];
  private readonly seen = new Map<string, string>();

  constructor(private readonly graceSeconds: number) {}

  /** One line of the timeline (`at`: ms since the epoch). */
  note(at: number, what: string): void {
    this.events.push({ at, what });
  }

  /** A line when `key`'s state changed since the last sample. */
  private change(at: number, key: string, state: string, what: string): void {
    if (this.seen.get(key) === state) return;
    this.seen.set(key, state);
    this.note(at, what);
  }

  lost(loss: NodeLoss): void {
    this.losses.push(loss);
    this.lostNodes.add(loss.node);
    this.note(loss.lostAt, `node ${loss.node} lost (${loss.pet} uid ${loss.uid})`);
  }

  back(node: string, at: number): void {
    this.lostNodes.delete(node);
    this.ghosts = this.ghosts.filter((g) => g.node !== node);
    this.note(at, `node ${node} back`);
  }

  answered(podUID: string, answer: "ack" | "fail" | "hang", at = Date.now()): void {
    if (answer === "ack") this.acked.add(podUID);
    if (answer !== "hang") this.fencerTurns.push({ uid: podUID, from: at });
    this.note(at, `fencer draws ${answer} for pod uid ${podUID}`);
  }

  /** The fencer's answer for `podUID` is written (or it gave up): its turn ends. */
  answerWritten(podUID: string, at = Date.now()): void {
    const turn = this.fencerTurns.findLast((t) => t.uid === podUID && t.to === undefined);
    if (turn) turn.to = at;
  }

  private timelineOf(now: number, pods: V1Pod[], nodes: V1Node[], fences: HookRecord[]): void {
    for (const n of nodes) {
      const ready = n.status?.conditions?.find((c) => c.type === "Ready");
      const state = `${ready?.status ?? "none"} since ${ready?.lastTransitionTime ?? "?"}`;
      this.change(now, `node ${n.metadata?.name}`, state, `node ${n.metadata?.name} Ready=${state}`);
    }
    for (const f of fences)
      this.change(
        now,
        `fence ${f.id}`,
        `${f.phase}#${f.attempts}`,
        `fence ${f.id} ${f.phase} attempt ${f.attempts} (started ${f.startedAt}${f.finishedAt ? `, finished ${f.finishedAt}` : ""}${f.message ? `: ${f.message}` : ""})`,
      );
    const uids = new Set<string>();
    for (const p of pods) {
      const uid = p.metadata?.uid ?? "";
      uids.add(uid);
      const request = handshake(p.metadata?.annotations?.[HookAnnotations.request]);
      const ack = handshake(p.metadata?.annotations?.[HookAnnotations.ack]);
      const state =
        `${p.spec?.nodeName ?? "unscheduled"} ready=${isReady(p)}${p.metadata?.deletionTimestamp ? " terminating" : ""}` +
        `${request ? ` request ${request}` : ""}${ack ? ` ack ${ack}` : ""}`;
      this.change(now, `pod ${uid}`, state, `pod ${p.metadata?.name} uid ${uid} on ${state}`);
    }
    for (const [key, state] of this.seen) {
      if (!key.startsWith("pod ") || state === "gone" || uids.has(key.slice(4))) continue;
      this.seen.set(key, "gone");
      this.note(now, `pod uid ${key.slice(4)} gone from the API`);
    }
  }

  sample(now: number, pods: V1Pod[], nodes: V1Node[], fences: HookRecord[]): void {
    this.timelineOf(now, pods, nodes, fences);
    for (const f of fences)
      if (f.phase === "Succeeded" && f.podUID) this.succeeded.add(`${f.podUID}@${f.id.split(".").at(-1)}`);
    const current = new Map(pods.map((p) => [p.metadata?.uid ?? "", p]));
    for (const [uid, p] of this.lastPods) {
      const node = p.spec?.nodeName;
      if (current.has(uid) || node === undefined || !this.lostNodes.has(node)) continue;
      const fenced = this.succeeded.has(`${uid}@${node}`);
      if (fenced) this.moved++;
      this.ghosts.push({ name: p.metadata?.name ?? "", uid, node, fenced });
    }
    this.lastPods = current;
    for (const g of this.ghosts) {
      if (g.fenced) continue;
      for (const p of pods) {
        if (p.metadata?.name !== g.name || p.spec?.nodeName === undefined) continue;
        this.twins.add(
          `${g.name}: uid ${g.uid} on lost node ${g.node} (not fenced) and uid ${p.metadata?.uid} on ${p.spec.nodeName}`,
        );
      }
    }
    for (const loss of this.losses) {
      if (this.recovered.has(loss)) continue;
      const ok = pods.some(
        (p) =>
          p.metadata?.name === loss.pet &&
          isReady(p) &&
          p.spec?.nodeName !== undefined &&
          !this.lostNodes.has(p.spec.nodeName),
      );
      if (ok) this.recovered.set(loss, now - loss.lostAt);
    }
  }

  /**
   * An acked loss's controller time in [lostAt, readyAt]: served, and the fencer not holding the
   * answer (see the header).
   */
  private controllerMs(loss: NodeLoss, readyAt: number, serving: readonly Interval[]): number {
    const turns = this.fencerTurns
      .filter((t) => t.uid === loss.uid)
      .map((t) => ({ from: t.from, to: t.to ?? readyAt }));
    const both = serving.flatMap((s) =>
      turns.map((t) => ({ from: Math.max(s.from, t.from), to: Math.min(s.to, t.to) })),
    );
    return coveredMs(serving, loss.lostAt, readyAt) - coveredMs(both, loss.lostAt, readyAt);
  }

  /** The loss's verdict: undefined when recovered within its bound, else why not. */
  private verdict(
    loss: NodeLoss,
    took: number | undefined,
    serving?: readonly Interval[],
  ): string | undefined {
    const acked = this.acked.has(loss.uid);
    const what = `${loss.pet} (node ${loss.node}, ${acked ? "acked" : "not acked"})`;
    if (took === undefined) return `${what}: never Ready again`;
    if (acked && serving !== undefined) {
      const counted = this.controllerMs(loss, loss.lostAt + took, serving);
      const bound = (this.graceSeconds + AFTER_SECONDS + SLACK_SECONDS) * 1000;
      if (counted <= bound) return undefined;
      return `${what}: Ready after ${took} ms, ${counted} ms of it controller time (bound ${bound} ms)`;
    }
    const bound = acked
      ? (this.graceSeconds + AFTER_SECONDS + ANSWER_DELAY_SECONDS + SLACK_SECONDS) * 1000
      : loss.backAt === undefined
        ? undefined
        : loss.backAt - loss.lostAt + SLACK_SECONDS * 1000;
    if (bound === undefined || took <= bound) return undefined;
    return `${what}: Ready after ${took} ms (bound ${bound} ms)`;
  }

  /** The events in order, as seconds after t0 (the first loss, else the first event; the first line). */
  timeline(): string[] {
    const sorted = [...this.events].sort((a, b) => a.at - b.at);
    const t0 = this.losses[0]?.lostAt ?? sorted[0]?.at ?? 0;
    return [
      `t0 ${new Date(t0).toISOString()}`,
      ...sorted.map((e) => `${e.at >= t0 ? "+" : ""}${((e.at - t0) / 1000).toFixed(1)} s ${e.what}`),
    ];
  }

  /** `serving`: when a controller served (node-serving.ts); without it, bounds are wall time. */
  findings(
    answers: ReadonlyMap<string, "ack" | "fail" | "hang">,
    errors: string[],
    serving?: readonly Interval[],
  ): NodeFindings {
    const count = (a: string) => [...answers.values()].filter((x) => x === a).length;
    const unrecovered: string[] = [];
    const recoveries: string[] = [];
    let slowest = 0;
    for (const loss of this.losses) {
      const took = this.recovered.get(loss);
      if (took !== undefined) slowest = Math.max(slowest, took);
      const bad = this.verdict(loss, took, serving);
      if (bad !== undefined) unrecovered.push(bad);
      const controller =
        took !== undefined && serving !== undefined && this.acked.has(loss.uid)
          ? `, ${(this.controllerMs(loss, loss.lostAt + took, serving) / 1000).toFixed(1)} s controller time`
          : "";
      recoveries.push(
        `${loss.pet} (node ${loss.node}, ${this.acked.has(loss.uid) ? "acked" : "not acked"}): ${took === undefined ? "never Ready again" : `Ready after ${(took / 1000).toFixed(1)} s${controller}`}`,
      );
    }
    const timeline = this.timeline();
    if (serving !== undefined)
      for (const s of serving)
        timeline.push(
          `controller serving ${new Date(s.from).toISOString()} to ${new Date(s.to).toISOString()}`,
        );
    return {
      nodeLosses: this.losses.length,
      fences: { acked: count("ack"), failed: count("fail"), hung: count("hang") },
      twoPodsOneIdentity: [...this.twins],
      moved: this.moved,
      unrecovered,
      recoveries,
      slowestRecoveryMs: slowest,
      errors,
      timeline,
    };
  }
}
