/**
 * The app of a PetSet with spec.roles, in the pure world of simulate.ts (shared by the planner
 * property test and the model checker's roles-app.ts): it labels its pods petset.dev/role
 * (every pod, only the leader, or only the pods it started with); with failover, a lost or
 * unready leader's role goes to the highest Ready pod. Each relabel is a write: the pod's
 * resourceVersion moves.
 */
import type { World } from "./simulate.js";
import { podsOf } from "./simulate.js";

export const ROLE = "petset.dev/role";

export type Labelling = "all" | "leaderOnly" | "initialOnly";

export interface App {
  labelling: Labelling;
  failover: boolean;
  /** The leader's ordinal. */
  leader: number;
  /** uids of the pods the app started with (initialOnly labels only those). */
  initial: Set<string>;
}

/** The app (re)labels its live pods by its mode; with failover the role moves off a lost leader. */
export function labelRoles(world: World, app: App): void {
  const live = podsOf(world).filter((p) => p.deletionTimestamp === undefined);
  const leaderPod = live.find((p) => p.ordinal === app.leader);
  if (app.failover && (leaderPod === undefined || !leaderPod.ready)) {
    const next = live.filter((p) => p.ready).sort((a, b) => b.ordinal - a.ordinal)[0];
    if (next !== undefined) app.leader = next.ordinal;
  }
  for (const pod of live) {
    const isLeader = pod.ordinal === app.leader;
    const labelled =
      app.labelling === "all" ||
      (app.labelling === "leaderOnly" && isLeader) ||
      (app.labelling === "initialOnly" && app.initial.has(pod.uid));
    const role = labelled ? (isLeader ? "leader" : "follower") : undefined;
    if (pod.labels[ROLE] === role) continue;
    const sim = world.pods.get(pod.name);
    if (sim === undefined) continue;
    const { [ROLE]: _old, ...rest } = sim.view.labels;
    world.serial++;
    sim.view = {
      ...sim.view,
      labels: role === undefined ? rest : { ...rest, [ROLE]: role },
      resourceVersion: String(world.serial),
    };
  }
}
