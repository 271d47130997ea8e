/**
 * Lost nodes: fence, then move (SPEC rule 13, docs/failover.md). Pure: nodes, pods, hook records
 * and the injected clock in; hook gates, force-delete steps, Events and a report out. The rules:
 *
 *  - A pet is on a lost node when its pod's node (spec.nodeName) has a Ready condition Unknown or
 *    False, or is gone (not among the nodes). Lost since: the node's Ready lastTransitionTime
 *    (API data, so a restarted controller agrees); a gone node: the pod's not-Ready time, else its
 *    creation. Without a node list (the cache has not synced, or cannot be read) nothing is
 *    judged: an empty view must never look like every node gone.
 *  - Every pet on a lost node is reported, whatever the policy: condition PetsOnLostNodes (True,
 *    naming each pet, node and state; False when there is none), a Warning PetOnLostNode for each
 *    pet the stored condition did not name yet, and the count (petset_pets_on_lost_nodes).
 *  - Manual (the default, also with no spec.nodeFailure): report only, with the commands to fence
 *    by hand. Nothing is deleted: no pet ever gets a second pod while the first may run.
 *  - Fence: once lost for afterSeconds, the `fence` hook runs through the hook machinery
 *    (hooks.ts: record, timeout, retries, at-least-once, never two runs of one id at once). Its
 *    id is per pod uid and node: `fence.<set>.<ordinal>.<pod uid prefix>.<node>`. Its failure
 *    policy is always Pause: a failed or hung fence leaves the pet where it is (the condition
 *    says so; `kubectl petset hook retry` runs it again).
 *  - Budget: at most maxUnavailable pets in a fence at once (a fence Running, failed for good,
 *    or succeeded while its pod still exists); pets already in one go first, then lowest
 *    ordinal. The others wait, reported.
 *  - Only after the fence succeeded, and while the node is still lost as cached: one
 *    forceDeleteLostPod step (the executor re-reads the node uncached and skips when it is Ready
 *    again, optionally taints it out-of-service, force-deletes the pod with its uid as
 *    precondition, then deletes the pet's VolumeAttachments on that node). The pod gone, the
 *    normal path creates the pet again (claims kept; ordering, hooks and roles apply). No other
 *    step touches that pod in the same plan.
 *  - A lost leader (spec.roles, the pod labelled leader): after its fence succeeded and before
 *    the force delete, a `job`, `webhook` or `external` switchover runs as configured (id
 *    `switchover.<set>.fence.<ordinal>.<pod uid prefix>`, PETSET_CANDIDATE the highest available
 *    follower; its failure policy holds the move like any switchover); an `exec` one cannot run
 *    in a pod on a dead node: it is skipped (Warning HookSkipped), the fence is its
 *    precondition and the app elects a new leader (docs/failover.md).
 *  - A node Ready again: a fence Running for it is cancelled ("node Ready again") and a finished
 *    one retired (Cancelled), so a later loss of the same pod runs a new fence; nothing is
 *    deleted. A fence answered before the node's current loss began (its Ready
 *    lastTransitionTime is later than the answer: the node came back and was lost again, and no
 *    sync saw it Ready) is retired the same way: it fenced an earlier loss, a new one runs. The
 *    force-delete step carries the loss time the plan saw; the executor's uncached read refuses
 *    when the node's Ready condition changed after it (a flap the view has not caught up with). A pod already terminating on a lost node is fenced like any other (a graceful
 *    delete never ends while its kubelet is away).
 */
import {
  claimName,
  type HookRecord,
  hookSpecOf,
  type NodeFailure,
  type PetSetStatus,
  PetsOnLostNodesCondition,
} from "../../api/index.js";
import { uidPrefix, writeRecord } from "./hook-records.js";
import { gateHook, type HookRequest } from "./hooks.js";
import { event, type PlanContext } from "./plan-context.js";
import { type ConditionUpdate, setCondition } from "./plan-status.js";
import { isAvailable } from "./pod-health.js";
import { HookSkippedReason } from "./scale-down-hooks.js";
import type { PodView } from "./views.js";

/** What the planner knows of a Node: its name and Ready condition (cache-trim keeps only this). */
export interface NodeView {
  name: string;
  /** Ready condition status; absent: the node never reported. */
  ready?: "True" | "False" | "Unknown";
  /** Ready condition lastTransitionTime, ms. */
  readySince?: number;
}

export type LostPetState = "waiting" | "fencing" | "fence failed" | "fenced" | "over budget" | "manual";

export interface LostPet {
  pod: string;
  ordinal: number;
  node: string;
  /** ms since the epoch. */
  lostSince: number;
  /** "NodeStatusUnknown", "NotReady" or "NodeGone". */
  why: string;
  state: LostPetState;
}

export const NodeFailureEventReasons = {
  petOnLostNode: "PetOnLostNode",
  fenced: "PetFenced",
  nodeBack: "NodeReadyAgain",
} as const;

const DEFAULT_AFTER_SECONDS = 300;

/** The node is lost (see the header), with why; undefined when it is Ready. */
export function nodeLoss(
  nodes: ReadonlyMap<string, NodeView>,
  pod: PodView,
): { why: string; since: number } | undefined {
  if (pod.nodeName === undefined || pod.nodeName === "") return undefined;
  const node = nodes.get(pod.nodeName);
  if (node === undefined) return { why: "NodeGone", since: pod.notReadySince ?? pod.createdAt };
  if (node.ready === "True") return undefined;
  const since = node.readySince ?? pod.notReadySince ?? pod.createdAt;
  return { why: node.ready === "False" ? "NotReady" : "NodeStatusUnknown", since };
}

export function fenceId(ctx: PlanContext, pod: PodView): string {
  return `fence.${ctx.spec.setName}.${pod.ordinal}.${uidPrefix(pod.uid)}.${pod.nodeName ?? ""}`;
}

function fenceRecord(ctx: PlanContext, pod: PodView): { record: HookRecord; holder: number } | undefined {
  return ctx.hooks.records.get(fenceId(ctx, pod));
}

/**
 * Judges every pet against the nodes; gates fences and plans force deletes (see the header).
 * Call before the other pod steps: the pods it acts on are marked touched.
 */
export function planNodeFailure(ctx: PlanContext): LostPet[] {
  const nodeList = ctx.input.nodes;
  if (nodeList === undefined) return [];
  const nodes = new Map(nodeList.map((n) => [n.name, n]));
  const nf: Pick<NodeFailure, "policy" | "afterSeconds" | "taintOutOfService"> = ctx.input.petSet.spec
    .nodeFailure ?? { policy: "Manual", afterSeconds: DEFAULT_AFTER_SECONDS, taintOutOfService: false };
  const fencing = nf.policy === "Fence" && hookSpecOf(ctx.input.petSet.spec, "fence") !== undefined;
  const now = ctx.input.now;
  retireFencesOfNodesBack(ctx, nodes);

  const lost: { pod: PodView; why: string; since: number }[] = [];
  for (const pod of [...ctx.podsByOrdinal.values()].sort((a, b) => a.ordinal - b.ordinal)) {
    const loss = nodeLoss(nodes, pod);
    if (loss !== undefined) lost.push({ pod, ...loss });
  }
  if (!fencing) return lost.map((l) => report(l, "manual"));

  // Pets already in a fence hold a slot; they go first.
  const inFence = (pod: PodView) => {
    const r = fenceRecord(ctx, pod)?.record;
    return r !== undefined && r.phase !== "Cancelled";
  };
  let slots = ctx.spec.maxUnavailable - lost.filter((l) => inFence(l.pod)).length;
  const ordered = [...lost.filter((l) => inFence(l.pod)), ...lost.filter((l) => !inFence(l.pod))];
  const out: LostPet[] = [];
  for (const l of ordered) {
    const due = l.since + nf.afterSeconds * 1000;
    if (!inFence(l.pod)) {
      if (now < due) {
        ctx.wakeAt.push(due);
        out.push(report(l, "waiting"));
        continue;
      }
      if (slots <= 0) {
        out.push(report(l, "over budget"));
        continue;
      }
      slots--;
    }
    const lostSince = nodes.get(l.pod.nodeName ?? "")?.readySince;
    out.push(report(l, gateFence(ctx, l.pod, nf.taintOutOfService, lostSince)));
  }
  return out.sort((a, b) => a.ordinal - b.ordinal);
}

function report(l: { pod: PodView; why: string; since: number }, state: LostPetState): LostPet {
  return {
    pod: l.pod.name,
    ordinal: l.pod.ordinal,
    node: l.pod.nodeName ?? "",
    lostSince: l.since,
    why: l.why,
    state,
  };
}

function gateFence(
  ctx: PlanContext,
  pod: PodView,
  taint: boolean,
  lostSince: number | undefined,
): LostPetState {
  const req: HookRequest = {
    hook: "fence",
    holder: ctx.index.byNumber(pod.version) ?? ctx.versions.current,
    pod,
    id: fenceId(ctx, pod),
  };
  if (pod.version !== undefined) req.fromVersion = pod.version;
  // The pet is not moved by anything else while it is on a lost node.
  ctx.touched.add(pod.name);
  if (gateHook(ctx, req) === "wait") {
    const r = fenceRecord(ctx, pod)?.record;
    return r?.phase === "Failed" ? "fence failed" : "fencing";
  }
  if (gateFencedLeaderSwitchover(ctx, pod, req.holder) === "wait") return "fencing";
  ctx.steps.push({
    kind: "forceDeleteLostPod",
    podName: pod.name,
    ordinal: pod.ordinal,
    uid: pod.uid,
    resourceVersion: pod.resourceVersion,
    node: pod.nodeName ?? "",
    ...(lostSince !== undefined ? { lostSince } : {}),
    taintOutOfService: taint,
    fenceId: req.id ?? "",
    claimNames: req.holder.spec.volumeClaimTemplates.map((t) =>
      claimName(t.metadata.name, ctx.spec.setName, pod.ordinal),
    ),
  });
  ctx.moved = true;
  event(
    ctx,
    "Normal",
    NodeFailureEventReasons.fenced,
    pod.name,
    `fence ${req.id} succeeded: force-deleting ${pod.name} (node ${pod.nodeName} lost) and removing its volume attachments there; the pet is created again`,
  );
  return "fenced";
}

/** A fenced leader's switchover before its move (see the header): "done" when it may go. */
function gateFencedLeaderSwitchover(
  ctx: PlanContext,
  pod: PodView,
  holder: HookRequest["holder"],
): "done" | "wait" {
  const roles = ctx.input.petSet.spec.roles;
  const spec = roles?.switchover;
  if (roles === undefined || spec === undefined || pod.labels[roles.labelKey] !== roles.leader) return "done";
  const id = `switchover.${ctx.spec.setName}.fence.${pod.ordinal}.${uidPrefix(pod.uid)}`;
  if (spec.exec !== undefined) {
    if (!ctx.hooks.records.has(id))
      event(
        ctx,
        "Warning",
        HookSkippedReason,
        pod.name,
        `switchover on ${pod.name}: skipped, the leader's node ${pod.nodeName} is lost so the exec hook cannot run in it; its fence succeeded, the app elects a new leader`,
      );
    return "done";
  }
  const inRange = new Set(ctx.spec.ordinals);
  const candidate = [...ctx.podsByOrdinal.values()]
    .filter((p) => p !== pod && inRange.has(p.ordinal) && isAvailable(p, ctx.spec.minReadyMs, ctx.input.now))
    .sort((a, b) => b.ordinal - a.ordinal)[0];
  const req: HookRequest = { hook: "switchover", holder, pod, id };
  if (pod.version !== undefined) req.fromVersion = pod.version;
  if (candidate !== undefined) req.candidate = candidate.name;
  return gateHook(ctx, req);
}

/** A finished fence answered before the node's current loss began (see the header). */
function answeredBeforeLoss(record: HookRecord, node: NodeView | undefined): boolean {
  if (node === undefined || node.ready === "True" || node.readySince === undefined) return false;
  if (record.phase !== "Succeeded" && record.phase !== "Failed") return false;
  const answered = Date.parse(record.finishedAt ?? record.startedAt);
  return Number.isFinite(answered) && answered < node.readySince;
}

/** Nodes Ready again, or lost again since the fence's answer: their fences are retired (see the header). */
function retireFencesOfNodesBack(ctx: PlanContext, nodes: ReadonlyMap<string, NodeView>): void {
  // No hook record at all (the common case): no fence to retire, no id to build per pod.
  if (ctx.hooks.records.size === 0) return;
  const iso = new Date(ctx.input.now).toISOString();
  for (const pod of ctx.podsByOrdinal.values()) {
    if (pod.nodeName === undefined) continue;
    const node = nodes.get(pod.nodeName);
    const found = fenceRecord(ctx, pod);
    if (found === undefined || found.record.phase === "Cancelled") continue;
    const { record, holder } = found;
    const after = `after: ${record.phase}${record.message !== undefined ? `, ${record.message}` : ""}`;
    if (node?.ready !== "True") {
      if (!answeredBeforeLoss(record, node)) continue;
      writeRecord(ctx.hooks, holder, {
        ...record,
        phase: "Cancelled",
        message: `node ${pod.nodeName} came back and was lost again since this fence's answer: a new fence runs (${after})`,
      });
      continue;
    }
    writeRecord(ctx.hooks, holder, {
      ...record,
      phase: "Cancelled",
      finishedAt: record.finishedAt ?? iso,
      message: `node ${pod.nodeName} is Ready again: the pet stays (${after})`,
    });
    event(
      ctx,
      "Normal",
      NodeFailureEventReasons.nodeBack,
      pod.name,
      `node ${pod.nodeName} is Ready again: fence ${record.id} withdrawn, ${pod.name} stays`,
    );
  }
}

function describePet(p: LostPet, now: number): string {
  const age = Math.max(0, Math.round((now - p.lostSince) / 1000));
  return `${p.pod} on node ${p.node} (${p.why} for ${age}s, ${p.state})`;
}

/** The commands a human runs to fence a pet by hand (Manual), for the condition and the plugin. */
export function manualFenceCommand(namespace: string, p: Pick<LostPet, "pod" | "node">): string {
  return `make sure node ${p.node} is off, then: kubectl taint node ${p.node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute; kubectl delete pod ${p.pod} -n ${namespace} --grace-period=0 --force`;
}

/** The PetsOnLostNodes condition for this plan's report. */
export function lostPetsCondition(ctx: PlanContext, lost: readonly LostPet[]): ConditionUpdate {
  if (lost.length === 0)
    return {
      type: PetsOnLostNodesCondition,
      status: "False",
      reason: "NoPetsOnLostNodes",
      message: "every pet's node is Ready",
    };
  const now = ctx.input.now;
  const namespace = ctx.input.petSet.metadata.namespace ?? "default";
  const pets = lost.map((p) => describePet(p, now)).join("; ");
  const manual = lost.filter((p) => p.state === "manual");
  const failed = lost.some((p) => p.state === "fence failed");
  const reason = manual.length > 0 ? "ManualFenceRequired" : failed ? "FenceFailed" : "Fencing";
  const hint =
    manual.length > 0
      ? `; spec.nodeFailure.policy is Manual: ${manual.map((p) => manualFenceCommand(namespace, p)).join("; ")}`
      : failed
        ? "; a failed fence leaves the pet where it is: kubectl petset hook list, then hook retry"
        : "";
  return { type: PetsOnLostNodesCondition, status: "True", reason, message: `${pets}${hint}` };
}

/** A Warning for each lost pet the stored condition does not name yet. */
export function warnNewlyLost(ctx: PlanContext, lost: readonly LostPet[]): void {
  const stored = ctx.input.petSet.status?.conditions.find((c) => c.type === PetsOnLostNodesCondition);
  const named = stored?.status === "True" ? (stored.message ?? "") : "";
  for (const p of lost) {
    if (named.includes(`${p.pod} on node ${p.node} `)) continue;
    event(
      ctx,
      "Warning",
      NodeFailureEventReasons.petOnLostNode,
      "petset",
      `${p.pod} is on node ${p.node}, which is lost (${p.why}); ${p.state === "manual" ? "spec.nodeFailure.policy is Manual: fence it by hand (kubectl petset status)" : `the fence hook runs after spec.nodeFailure.afterSeconds`}`,
    );
  }
}

/** The status with PetsOnLostNodes set (removed when no pet is on a lost node), Events for new ones. */
export function withLostPets(ctx: PlanContext, status: PetSetStatus, lost: readonly LostPet[]): PetSetStatus {
  if (lost.length === 0) {
    if (!status.conditions.some((c) => c.type === PetsOnLostNodesCondition)) return status;
    return { ...status, conditions: status.conditions.filter((c) => c.type !== PetsOnLostNodesCondition) };
  }
  warnNewlyLost(ctx, lost);
  const conditions = setCondition(
    status.conditions,
    lostPetsCondition(ctx, lost),
    ctx.input.now,
    ctx.input.petSet.metadata.generation,
  );
  return { ...status, conditions };
}
