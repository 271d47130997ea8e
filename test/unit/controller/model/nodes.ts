/**
 * Nodes for the model checker (fence-model.test.ts, issue 27, planner/node-failure.ts): the
 * truth of a few Nodes, lost and back, around the simulated world of simulate.ts.
 *
 * - A lost node: Ready=Unknown from now (as the node lifecycle controller marks it); its pods
 *   are marked not Ready and freeze: the kubelet is away, so nothing about them changes, and a
 *   graceful delete never ends. Back: Ready=True; the kubelet resumes and kills every process
 *   of a pod no longer in the API (a force-deleted pet's old process: a "ghost").
 * - The scheduler binds a new pod to the Ready node with the fewest pets (none Ready: it waits).
 * - The executor's forceDeleteLostPod reads the node uncached (Ready again: the step stops, as
 *   StaleViewError), then deletes the pod at once with its uid as precondition.
 * - The fence runner (the harness answering the external fence): a Running fence record is
 *   answered Succeeded or Failed on the truth, or left hanging (the planner times it out).
 *
 * Invariants, checked on the truth:
 *  - a force delete only for a pod whose fence (its uid and node) is Succeeded in the API, and
 *    answered during the node's current loss (after it was last Ready);
 *  - never two pods of one pet that could both run: a pet's pod in the API while a ghost of it
 *    runs on a node that was not fenced and is not back;
 *  - never more pets in a fence (a record not Cancelled whose pod still exists) than
 *    maxUnavailable.
 */
import type { HookRecord, PetSetVersion } from "../../../../src/api/index.js";
import type { Expectation } from "../../../../src/controller/expectations.js";
import { resolveMaxUnavailable, type Step } from "../../../../src/controller/planner/index.js";
import type { NodeView } from "../../../../src/controller/planner/node-failure.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { record } from "./feeds.js";
import type { Outcome } from "./perform.js";
import { type Model, noteWrite, type Replica } from "./stale-model.js";

/** A force-deleted pod's process, still on its node until the node is fenced or back. */
export interface Ghost {
  pod: string;
  uid: string;
  node: string;
  /** Its fence had Succeeded (in the API) when it was force-deleted: the node cannot run it. */
  fenced: boolean;
}

export interface Nodes {
  truth: Map<string, NodeView>;
  ghosts: Ghost[];
}

type ForceDelete = Extract<Step, { kind: "forceDeleteLostPod" }>;

export function addNodes(m: Model, count: number): void {
  const truth = new Map<string, NodeView>();
  for (let i = 0; i < count; i++) truth.set(`n${i}`, { name: `n${i}`, ready: "True", readySince: 0 });
  m.nodes = { truth, ghosts: [] };
  for (const name of m.world.pods.keys()) bindNew(m, name);
  record(m);
}

const isReady = (m: Model, node: string | undefined) =>
  node !== undefined && m.nodes?.truth.get(node)?.ready === "True";

function violate(m: Model, msg: string): void {
  const line = `t=${m.world.now}: ${msg}`;
  if (!m.violations.includes(line)) m.violations.push(line);
}

/** The scheduler: an unbound pod goes to the Ready node with the fewest pods. */
export function bindNew(m: Model, name: string): void {
  const sim = m.world.pods.get(name);
  if (m.nodes === undefined || sim === undefined || sim.view.nodeName !== undefined) return;
  const load = (n: string) => [...m.world.pods.values()].filter((p) => p.view.nodeName === n).length;
  const ready = [...m.nodes.truth.values()].filter((n) => n.ready === "True").map((n) => n.name);
  const node = ready.sort((a, b) => load(a) - load(b) || a.localeCompare(b))[0];
  if (node === undefined) return;
  sim.view = { ...sim.view, nodeName: node, resourceVersion: String(++m.world.serial) };
  record(m);
}

export function loseNode(m: Model, node: string): void {
  const n = m.nodes?.truth.get(node);
  if (m.nodes === undefined || n === undefined || n.ready !== "True") return;
  m.nodes.truth.set(node, { name: node, ready: "Unknown", readySince: m.world.now });
  for (const sim of m.world.pods.values()) {
    if (sim.view.nodeName !== node || !sim.view.ready) continue;
    sim.view = {
      ...sim.view,
      ready: false,
      notReadySince: m.world.now,
      resourceVersion: String(++m.world.serial),
    };
  }
  record(m);
}

export function nodeBack(m: Model, node: string): void {
  const n = m.nodes?.truth.get(node);
  if (m.nodes === undefined || n === undefined || n.ready === "True") return;
  m.nodes.truth.set(node, { name: node, ready: "True", readySince: m.world.now });
  // The kubelet kills what the API no longer holds.
  m.nodes.ghosts = m.nodes.ghosts.filter((g) => g.node !== node);
  record(m);
}

/** The kubelet tick: pods on lost nodes and unbound pods stand still; then the scheduler binds. */
export function nodesTick(m: Model, kubelet: () => void): void {
  const still = [...m.world.pods].filter(([, p]) => !isReady(m, p.view.nodeName));
  for (const [name] of still) m.world.pods.delete(name);
  kubelet();
  for (const [name, sim] of still) m.world.pods.set(name, sim);
  for (const name of [...m.world.pods.keys()]) bindNew(m, name);
}

/** Every fence record on the truth's versions. */
export function fences(m: Model): HookRecord[] {
  return m.world.versions.flatMap((v) => v.status?.hooks ?? []).filter((h) => h.hook === "fence");
}

/** The executor's forceDeleteLostPod (executor.ts, node-fencing.ts) on the truth. */
export function forceDeleteLost(
  m: Model,
  r: Replica,
  step: ForceDelete,
  expect: (e: Expectation) => void,
): Outcome {
  // Read uncached (node-fencing.ts): Ready again, or its Ready condition changed since the
  // plan's view: the step stops (StaleViewError), the pet stays.
  if (isReady(m, step.node)) return "conflict";
  const lostAt = m.nodes?.truth.get(step.node)?.readySince ?? 0;
  if (step.lostSince !== undefined && lostAt > step.lostSince) return "conflict";
  expect({ kind: "gone", resource: "pods", name: step.podName, uid: step.uid });
  const sim = m.world.pods.get(step.podName);
  if (sim === undefined || sim.view.uid !== step.uid) return "notFound";
  noteWrite(m, r);
  const fence = fences(m).find((h) => h.id === step.fenceId);
  // The fence must hold for this loss: answered after the node was last Ready (a node that came
  // back since may run the pet again).
  const answeredAt = fence?.finishedAt !== undefined ? Date.parse(fence.finishedAt) : -1;
  const fenced =
    fence?.phase === "Succeeded" &&
    fence.podUID === step.uid &&
    sim.view.nodeName === step.node &&
    answeredAt >= lostAt;
  if (!fenced)
    violate(
      m,
      `replica ${r.id} force-deleted ${step.podName} (uid ${step.uid}, node ${step.node}, lost since ${lostAt}) without a Succeeded fence for it in this loss (API: ${fence?.phase ?? "no record"}${fence?.finishedAt !== undefined ? ` at ${answeredAt}` : ""})`,
    );
  m.world.pods.delete(step.podName);
  m.world.stepsApplied.push(step);
  if (sim.view.nodeName !== undefined)
    m.nodes?.ghosts.push({ pod: step.podName, uid: step.uid, node: sim.view.nodeName, fenced });
  record(m);
  return "ok";
}

/** The harness answers the `pick`-th Running fence: Succeeded, Failed, or nothing (it hangs). */
export function answerFence(m: Model, pick: number, outcome: "ok" | "fail" | "hang"): void {
  const running = fences(m).filter((h) => h.phase === "Running");
  const target = running[pick % Math.max(1, running.length)];
  if (target === undefined || outcome === "hang") return;
  const at = new Date(m.world.now).toISOString();
  const answer = (h: HookRecord): HookRecord =>
    h.id !== target.id || h.phase !== "Running"
      ? h
      : outcome === "ok"
        ? { ...h, phase: "Succeeded", finishedAt: at, message: "fenced by the harness" }
        : { ...h, phase: "Failed", failures: h.failures + 1, finishedAt: at, message: "the BMC said no" };
  m.world.versions = m.world.versions.map((v): PetSetVersion => {
    if (!(v.status?.hooks ?? []).some((h) => h.id === target.id)) return v;
    return {
      ...v,
      metadata: { ...v.metadata, resourceVersion: String(++m.world.serial) },
      status: { ...v.status!, hooks: (v.status?.hooks ?? []).map(answer) },
    };
  });
  record(m);
}

/** The node invariants on the truth (see the header); called by record(). */
export function checkNodeTruth(m: Model): void {
  const nodes = m.nodes;
  if (nodes === undefined) return;
  const pods = [...m.world.pods.values()].map((p) => p.view);
  for (const g of nodes.ghosts) {
    if (g.fenced || isReady(m, g.node)) continue;
    const twin = pods.find((p: PodView) => p.name === g.pod && p.nodeName !== undefined);
    if (twin !== undefined)
      violate(
        m,
        `two pods of ${g.pod} could run: uid ${g.uid} on unfenced lost node ${g.node} and uid ${twin.uid} on ${twin.nodeName}`,
      );
  }
  const live = new Set(pods.map((p) => p.uid));
  const inFence = fences(m).filter((h) => h.phase !== "Cancelled" && live.has(h.podUID ?? ""));
  const spec = m.world.petSet.spec;
  const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
  if (inFence.length > max)
    violate(
      m,
      `${inFence.length} pets in a fence (${inFence.map((h) => h.pod).join(", ")}) > maxUnavailable ${max}`,
    );
}
