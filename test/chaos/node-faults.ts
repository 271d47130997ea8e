/**
 * Node faults in a chaos run (issue 27, docs/failover.md): a PetSet `fenced` (2 pets, Parallel,
 * maxUnavailable 1) with spec.nodeFailure Fence and an `external` fence, on three nodes of its own
 * (a taint only its pods tolerate), while the run's other faults go on. Seeded:
 *  - node losses: the label kubelet.petset.dev/lost=true on a node holding a pet (embedded: the
 *    simulated kubelet; real: kwok releases it, kube-controller-manager marks it), removed again
 *    after `downMs` (a node coming back after its pet moved must not run it);
 *  - the fencer (the harness answering the external fence with `kubectl petset hook ack|fail`):
 *    most fences acked, some failed, some left hanging past their timeout.
 * Judged (node-judge.ts) from samples of the pods, nodes and fence records every 500 ms.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_VERSION,
  GROUP,
  HookAnnotations,
  type HookRecord,
  PETSET_KIND,
  PETSET_PLURAL,
  VERSION,
} from "../../src/api/index.js";
import { REPO_ROOT } from "../support/cluster.js";
import { type NodeFindings, NodeJudge, type NodeLoss } from "./node-judge.js";
import type { Interval } from "./node-serving.js";
import type { Rng } from "./prng.js";

export const FENCED = "fenced";
export const LOST_LABEL = "kubelet.petset.dev/lost";
export const AFTER_SECONDS = 2;
export const FENCE_TIMEOUT_SECONDS = 15;
const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface NodeFaultOptions {
  kubeConfig: import("@kubernetes/client-node").KubeConfig;
  kubeconfigPath: string;
  namespace: string;
  rng: Rng;
  losses: number;
  /** When the losses happen: spread over this window (ms after the start). */
  windowMs: number;
  /** Seconds before a lost node is marked Ready=Unknown (the node monitor grace). */
  graceSeconds: number;
  log: (line: string) => void;
  /** When a controller served (node-serving.ts): the judge counts recovery in controller time. */
  serving?: () => Interval[];
}

export type FenceAnswer = "ack" | "fail" | "hang";

export class NodeFaults {
  readonly nodes: string[];
  readonly losses: NodeLoss[] = [];
  readonly answers = new Map<string, FenceAnswer>();
  readonly judge: NodeJudge;
  readonly errors: string[] = [];
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private stopped = false;
  private loops: Promise<void>[] = [];
  private answering: Promise<void>[] = [];

  constructor(private readonly o: NodeFaultOptions) {
    const suffix = o.namespace.slice(-6).replace(/[^a-z0-9]/g, "x");
    this.nodes = [0, 1, 2].map((i) => `petset-chaos-${suffix}-${i}`);
    this.core = o.kubeConfig.makeApiClient(CoreV1Api);
    this.custom = o.kubeConfig.makeApiClient(CustomObjectsApi);
    this.judge = new NodeJudge(o.graceSeconds);
  }

  async start(): Promise<void> {
    for (const name of this.nodes)
      await this.core.createNode({
        body: {
          metadata: {
            name,
            annotations: { "kwok.x-k8s.io/node": "fake" },
            labels: {
              type: "kwok",
              "kubernetes.io/hostname": name,
              "kubernetes.io/os": "linux",
              group: this.o.namespace,
            },
          },
          spec: { taints: [{ key: "petset.dev/chaos", value: this.o.namespace, effect: "NoSchedule" }] },
        },
      });
    await this.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PETSET_PLURAL,
      namespace: this.o.namespace,
      body: this.manifest(),
    });
    this.loops.push(this.sampleLoop(), this.fencerLoop());
  }

  private manifest(): Record<string, unknown> {
    return {
      apiVersion: API_VERSION,
      kind: PETSET_KIND,
      metadata: { name: FENCED },
      spec: {
        replicas: 2,
        podManagementPolicy: "Parallel",
        selector: { matchLabels: { app: FENCED } },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
        nodeFailure: {
          policy: "Fence",
          afterSeconds: AFTER_SECONDS,
          fence: { external: {}, timeoutSeconds: FENCE_TIMEOUT_SECONDS, retries: 0, failurePolicy: "Pause" },
        },
        template: {
          metadata: { labels: { app: FENCED } },
          spec: {
            nodeSelector: { group: this.o.namespace },
            tolerations: [
              { key: "petset.dev/chaos", operator: "Equal", value: this.o.namespace, effect: "NoSchedule" },
            ],
            containers: [{ name: "app", image: "registry.example/app:1" }],
          },
        },
      },
    };
  }

  /** The losses, one after the other (each waits for the set to be whole again first). */
  async lossTimeline(): Promise<void> {
    const r = this.o.rng;
    for (let i = 0; i < this.o.losses; i++) {
      await sleep(Math.floor(r.next() * (this.o.windowMs / this.o.losses / 2)));
      // Under a loaded machine's kill schedule a replica serves a few seconds in each ~40 s (it
      // takes ~15 s to start and lead, and is killed 4 s after): the set may take minutes to be whole.
      const whole = await this.waitWhole(180_000);
      if (!whole) {
        this.errors.push(`loss ${i}: the set was not whole (2 Ready pets) within 180 s`);
        continue;
      }
      const pods = await this.pods();
      const victim = pods[Math.floor(r.next() * pods.length)];
      const node = victim?.spec?.nodeName;
      if (victim === undefined || node === undefined) continue;
      // Kept down long enough for the fence to finish or time out; then it comes back.
      const downMs =
        (this.o.graceSeconds + AFTER_SECONDS + FENCE_TIMEOUT_SECONDS) * 1000 +
        30_000 + // a controller killed by the run's other faults takes ~10 s to come back under load
        Math.floor(r.next() * 10_000);
      const loss: NodeLoss = {
        node,
        pet: victim.metadata?.name ?? "",
        uid: victim.metadata?.uid ?? "",
        lostAt: Date.now(),
      };
      this.losses.push(loss);
      this.judge.lost(loss);
      this.o.log(`  node ${node} lost (${loss.pet}), back in ${downMs} ms`);
      await this.setLost(node, true);
      await sleep(downMs);
      await this.setLost(node, false);
      loss.backAt = Date.now();
      this.judge.back(node, loss.backAt);
      this.o.log(`  node ${node} back`);
    }
  }

  private async setLost(node: string, lost: boolean): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        await this.core.patchNode(
          { name: node, body: { metadata: { labels: { [LOST_LABEL]: lost ? "true" : null } } } },
          merge,
        );
        return;
      } catch (err) {
        if (i > 240) throw err; // the API server restarts under chaos: retry for a minute
        await sleep(250);
      }
    }
  }

  private async pods() {
    return (
      await this.core.listNamespacedPod({ namespace: this.o.namespace, labelSelector: `app=${FENCED}` })
    ).items;
  }

  private async waitWhole(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const ok = await this.pods()
        .then(
          (ps) =>
            ps.length === 2 &&
            ps.every((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")),
        )
        .catch(() => false);
      if (ok) return true;
      await sleep(500);
    }
    return false;
  }

  private async fenceRecords(): Promise<HookRecord[]> {
    const list = (await this.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: "petsetversions",
      namespace: this.o.namespace,
    })) as { items: { status?: { hooks?: HookRecord[] } }[] };
    return list.items.flatMap((v) => v.status?.hooks ?? []).filter((h) => h.hook === "fence");
  }

  private async sampleLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const [pods, nodes, fences] = await Promise.all([
          this.pods(),
          this.core.listNode({ labelSelector: `group=${this.o.namespace}` }),
          this.fenceRecords(),
        ]);
        this.judge.sample(Date.now(), pods, nodes.items, fences);
      } catch {
        // the API server restarts under chaos: the next sample
      }
      await sleep(500);
    }
  }

  /**
   * Answers each Running fence once: ack 70 %, fail 15 %, hang 15 % (left to time out). Each
   * answer is its own task, so one waiting does not hold the others.
   */
  private async fencerLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        for (const f of await this.fenceRecords()) {
          const key = `${f.id}#${f.attempts}`;
          if (f.phase !== "Running" || this.answers.has(key)) continue;
          const x = this.o.rng.next();
          const answer: FenceAnswer = x < 0.7 ? "ack" : x < 0.85 ? "fail" : "hang";
          this.answers.set(key, answer);
          this.judge.answered(f.podUID ?? "", answer);
          this.judge.note(Date.now(), `fencer: ${answer} for ${f.id} attempt ${f.attempts}`);
          this.o.log(`  fence ${f.id}: ${answer}`);
          if (answer === "hang") continue;
          const delayMs = Math.floor(this.o.rng.next() * 3_000);
          this.answering.push(this.answer(f, answer, delayMs));
        }
      } catch {
        // the API server restarts under chaos
      }
      await sleep(500);
    }
  }

  /**
   * `kubectl petset hook ack|fail` for run `f`, as a fencer (`kubectl petset observe`) would: it
   * answers the request the controller writes on the pod, so it is tried again while the fence
   * is still Running at that attempt (no controller may serve for a while: a killed leader's
   * Lease runs out, a replacement starts, a leader is frozen). The harness's error: the request
   * pending on the pod and the answer still refused 30 s later (the CLI or the handshake wrong).
   */
  private async answer(f: HookRecord, answer: "ack" | "fail", delayMs: number): Promise<void> {
    await sleep(delayMs);
    const args =
      answer === "ack"
        ? ["hook", "ack", FENCED, f.id]
        : ["hook", "fail", FENCED, f.id, "--message", "chaos: BMC said no"];
    let pendingSince: number | undefined;
    let refusals = 0;
    let last = "";
    for (;;) {
      const out = await this.plugin(args);
      if (out.code === 0) {
        this.judge.note(Date.now(), `fencer: hook ${answer} ${f.id} answered (${refusals} refused before)`);
        break;
      }
      refusals++;
      last = out.stderr;
      const still = await this.stillRunning(f);
      if (still === "moved on" || this.stopped) {
        this.judge.note(
          Date.now(),
          `fencer: ${f.id} attempt ${f.attempts} ${still}; answer dropped: ${last}`,
        );
        break;
      }
      if (still === "pending") pendingSince ??= Date.now();
      if (pendingSince !== undefined && Date.now() - pendingSince > 30_000) {
        this.errors.push(`hook ${answer} ${f.id}: refused for 30 s while its request was pending: ${last}`);
        break;
      }
      await sleep(1_000);
    }
    this.judge.answerWritten(f.podUID ?? "");
  }

  /** Is run `f` still Running at its attempt, and is its request on the pod yet? */
  private async stillRunning(f: HookRecord): Promise<"pending" | "not requested" | "moved on"> {
    try {
      const now = (await this.fenceRecords()).find((r) => r.id === f.id);
      if (now?.phase !== "Running" || now.attempts !== f.attempts) return "moved on";
      const pods = await this.pods();
      const asked = pods.some(
        (p) =>
          p.metadata?.uid === f.podUID &&
          p.metadata?.annotations?.[HookAnnotations.request]?.includes(`"${f.id}"`) === true,
      );
      return asked ? "pending" : "not requested";
    } catch {
      return "not requested"; // the API server restarts under chaos: try again
    }
  }

  private plugin(args: string[]): Promise<{ code: number; stderr: string }> {
    const full = [
      PLUGIN,
      ...args.slice(0, 2),
      "-n",
      this.o.namespace,
      "--kubeconfig",
      this.o.kubeconfigPath,
      ...args.slice(2),
    ];
    return new Promise((resolve) => {
      const c = spawn(process.execPath, full, { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      c.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      c.once("close", (code) => resolve({ code: code ?? 1, stderr: stderr.trim().slice(0, 300) }));
    });
  }

  /** Every node back; waits until the set is whole; stops sampling; the findings. */
  async finish(convergeMs: number): Promise<NodeFindings> {
    for (const n of this.nodes) await this.setLost(n, false).catch(() => undefined);
    if (!(await this.waitWhole(convergeMs)))
      this.errors.push(`${FENCED} not whole within ${convergeMs} ms after the faults`);
    this.stopped = true;
    await Promise.all([...this.loops, ...this.answering]);
    return this.judge.findings(this.answers, this.errors, this.o.serving?.());
  }

  async cleanup(): Promise<void> {
    this.stopped = true;
    for (const name of this.nodes) await this.core.deleteNode({ name }).catch(() => undefined);
  }
}

export type { NodeLoss };
export { sleep as nodeFaultSleep };
