/**
 * The judge of node faults (node-faults.ts), from samples of the fenced PetSet's pods, its nodes
 * and the fence records, every 500 ms:
 *  - twoPodsOneIdentity (must be 0): a pod gone from the API while its node was lost keeps
 *    running there (a "ghost") until the node comes back (its kubelet kills it) unless its fence
 *    had Succeeded (the node can no longer run it). A ghost not fenced while a pod of the same
 *    pet is in the API on a node is two pods of one pet that could both run.
 *  - unrecovered: a lost pet not Ready again (a pod of it Ready on a node that is not lost: the
 *    moved pod, or the old one once its node is back) within its bound: for an acked fence,
 *    lostAt + node monitor grace + afterSeconds + the answer's delay (3 s) + SLACK; for a failed or
 *    hung fence (the pet stays), the node's return + SLACK. SLACK (45 s) is the kubelet's time to
 *    start a pod plus a controller restarted by the run's other faults.
 */
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import type { HookRecord } from "../../src/api/index.js";

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
  /** The slowest recovery (ms after the loss) and the harness's own errors. */
  slowestRecoveryMs: number;
  errors: string[];
}

interface Ghost {
  name: string;
  uid: string;
  node: string;
  fenced: boolean;
}

const isReady = (p: V1Pod) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export class NodeJudge {
  private readonly lostNodes = new Set<string>();
  private readonly losses: NodeLoss[] = [];
  private readonly recovered = new Map<NodeLoss, number>();
  private readonly acked = new Set<string>();
  private ghosts: Ghost[] = [];
  private lastPods = new Map<string, V1Pod>();
  private readonly succeeded = new Set<string>();
  private readonly twins = new Set<string>();
  private moved = 0;

  constructor(private readonly graceSeconds: number) {}

  lost(loss: NodeLoss): void {
    this.losses.push(loss);
    this.lostNodes.add(loss.node);
  }

  back(node: string, _at: number): void {
    this.lostNodes.delete(node);
    this.ghosts = this.ghosts.filter((g) => g.node !== node);
  }

  answered(podUID: string, answer: "ack" | "fail" | "hang"): void {
    if (answer === "ack") this.acked.add(podUID);
  }

  sample(now: number, pods: V1Pod[], _nodes: V1Node[], fences: HookRecord[]): void {
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

  private boundMs(loss: NodeLoss): number | undefined {
    if (this.acked.has(loss.uid))
      return (this.graceSeconds + AFTER_SECONDS + ANSWER_DELAY_SECONDS + SLACK_SECONDS) * 1000;
    if (loss.backAt === undefined) return undefined;
    return loss.backAt - loss.lostAt + SLACK_SECONDS * 1000;
  }

  findings(answers: ReadonlyMap<string, "ack" | "fail" | "hang">, errors: string[]): NodeFindings {
    const count = (a: string) => [...answers.values()].filter((x) => x === a).length;
    const unrecovered: string[] = [];
    let slowest = 0;
    for (const loss of this.losses) {
      const took = this.recovered.get(loss);
      const bound = this.boundMs(loss);
      if (took !== undefined) slowest = Math.max(slowest, took);
      if (took === undefined || (bound !== undefined && took > bound))
        unrecovered.push(
          `${loss.pet} (node ${loss.node}, ${this.acked.has(loss.uid) ? "acked" : "not acked"}): ${took === undefined ? "never Ready again" : `Ready after ${took} ms`} (bound ${bound ?? "?"} ms)`,
        );
    }
    return {
      nodeLosses: this.losses.length,
      fences: { acked: count("ack"), failed: count("fail"), hung: count("hang") },
      twoPodsOneIdentity: [...this.twins],
      moved: this.moved,
      unrecovered,
      slowestRecoveryMs: slowest,
      errors,
    };
  }
}
