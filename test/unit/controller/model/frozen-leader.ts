/**
 * The one-writer scenario (SPEC rule 7), shared by the model checker's own test and its
 * planted-fault test: a leader frozen mid-sync beyond its Lease resumes after the standby took
 * over and wrote. The resumed leader first runs the rest of its old sync, then its caches catch
 * up and it syncs again. With the fence it writes nothing; a fence valid past the Lease (or none)
 * lets it write, beside the new leader.
 */
import { setImage } from "../planner/simulate.js";
import { newModel, settle } from "./schedule.js";
import {
  deliverAll,
  executeNext,
  freeze,
  leader,
  type Model,
  type ModelOptions,
  record,
  startSync,
  tick,
} from "./stale-model.js";

export function frozenLeaderResumes(opts: ModelOptions): { m: Model; writesAfterResume: number } {
  const m = newModel(
    { policy: "OrderedReady", maxUnavailable: 1, podUpdatePolicy: "Recreate", replicas: 3, readyTicks: 1 },
    opts,
  );
  const [a, b] = [m.replicas[0], m.replicas[1]];
  if (a === undefined || b === undefined)
    throw new Error("frozenLeaderResumes: the model needs two replicas");
  if (!settle(m)) throw new Error("frozenLeaderResumes: the set did not settle before the change");
  setImage(m.world, "app:2");
  record(m);
  deliverAll(m, a);
  startSync(m, a);
  if ((a.inflight?.steps.length ?? 0) < 2)
    throw new Error("frozenLeaderResumes: the leader's sync must have steps left to freeze between");
  executeNext(m, a);
  freeze(m, a, true);
  for (let t = 0; t < 6; t++) tick(m);
  if (leader(m) !== b) throw new Error("frozenLeaderResumes: the standby did not take over");
  deliverAll(m, b);
  startSync(m, b);
  for (let i = 0; i < 3; i++) executeNext(m, b);
  const before = m.attempts.get(a.id) ?? 0;
  freeze(m, a, false);
  for (let i = 0; i < 10; i++) executeNext(m, a);
  deliverAll(m, a);
  startSync(m, a);
  for (let i = 0; i < 10; i++) executeNext(m, a);
  return { m, writesAfterResume: (m.attempts.get(a.id) ?? 0) - before };
}
