/**
 * The lost-node schedules of fence-model.test.ts (issue 27): the stale-model actions plus nodes
 * lost and back, time passing, the leader catching up, and the external fence answered
 * Succeeded, Failed or left hanging; a model whose PetSet fences lost nodes (nodes.ts).
 */
import fc from "fast-check";
import { setImage, updateSpec } from "../planner/simulate.js";
import { addNodes, answerFence, loseNode, nodeBack } from "./nodes.js";
import { type Action, actionOrAnswerFault, apply, newModel, type Setup, settle } from "./schedule.js";
import {
  deliverAll,
  executeNext,
  leader,
  type Model,
  type ModelOptions,
  record,
  startSync,
  tick,
} from "./stale-model.js";

export type NodeAction =
  | { kind: "lose"; node: number }
  | { kind: "back"; node: number }
  | { kind: "fence"; pick: number; outcome: "ok" | "fail" | "hang" };
export type ModelAction = Action | NodeAction;

export const NODES = 4;

export const withNodes: fc.Arbitrary<ModelAction> = fc.oneof(
  { weight: 31, arbitrary: actionOrAnswerFault },
  {
    weight: 6,
    arbitrary: fc
      .record({
        back: fc.constantFrom(false, false, true),
        node: fc.integer({ min: 0, max: NODES - 1 }),
      })
      .map(({ back, node }): NodeAction => (back ? { kind: "back", node } : { kind: "lose", node })),
  },
  // Time must pass for a loss to reach afterSeconds and a fence its timeout.
  { weight: 10, arbitrary: fc.constant({ kind: "tick" as const }) },
  { weight: 6, arbitrary: fc.constant({ kind: "deliverAll" as const, replica: 0 }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("fence" as const),
      pick: fc.nat(3),
      outcome: fc.constantFrom("ok" as const, "ok" as const, "fail" as const, "hang" as const),
    }),
  },
);

/** A model whose PetSet fences lost nodes (afterSeconds 2, an external fence timing out at 4 s). */
export function fenceModel(s: Setup, opts: ModelOptions): Model {
  const m = newModel({ ...s, podUpdatePolicy: "Recreate" }, opts);
  updateSpec(m.world, (spec) => {
    spec.nodeFailure = {
      policy: "Fence",
      afterSeconds: 2,
      taintOutOfService: false,
      fence: { external: {}, timeoutSeconds: 4, retries: 1 } as NonNullable<typeof spec.nodeFailure>["fence"],
    };
  });
  addNodes(m, NODES);
  return m;
}

export function applyNodeAction(m: Model, a: ModelAction): void {
  if (a.kind === "lose") loseNode(m, `n${a.node}`);
  else if (a.kind === "back") nodeBack(m, `n${a.node}`);
  else if (a.kind === "fence") answerFence(m, a.pick, a.outcome);
  else apply(m, a);
}

/**
 * One schedule: settle, the actions, then faults stop (every node back; the user undoes what
 * would hold the final version back) and the pets must converge with no old process left.
 */
export function playFence(s: Setup, actions: readonly ModelAction[], opts: ModelOptions) {
  const m = fenceModel(s, opts);
  const ready = settle(m, 100);
  for (const a of actions) applyNodeAction(m, a);
  // Faults stop: every node is back; the user undoes what would hold the final version back.
  for (let i = 0; i < NODES; i++) nodeBack(m, `n${i}`);
  updateSpec(m.world, (spec) => {
    spec.replicas = s.replicas;
    spec.paused = false;
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setImage(m.world, "app:final");
  record(m);
  const done = ready && settle(m, 300);
  return { violations: m.violations, done, ghosts: m.nodes?.ghosts.map((g) => g.uid) ?? [] };
}

/** One tick, then the leader syncs on a fresh view to the end. */
export function syncFresh(m: Model): void {
  tick(m);
  const l = leader(m);
  if (l === undefined) return;
  deliverAll(m, l);
  startSync(m, l);
  for (let i = 0; i < 20 && l.inflight !== undefined; i++) executeNext(m, l);
}
