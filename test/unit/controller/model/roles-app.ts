/**
 * The people and programs around a PetSet with spec.roles, steps or External, acting on the
 * model's truth (issue 24 item 11; schedule.ts draws them):
 *  - the app labels its pods petset.dev/role (every pod, only the leader, or only the pods it
 *    started with); with failover, a lost or unready leader's role goes to the highest Ready pod;
 *  - a user promotes the step the PetSet's status shows (`<T>#<step>`), or every step (`#full`);
 *  - the outside requester of External annotates a pod petset.dev/update-requested with the
 *    target the controller told it (petset.dev/target-version);
 *  - a condemned leader (scaled away, no switchover hook) stays until another pet leads: the
 *    human moves the role to a pet that stays, a Ready one when there is one (scaled to zero:
 *    demotes it).
 * Each change is a write: the object's resourceVersion moves and the feeds record it.
 */
import { Annotations } from "../../../../src/api/index.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { type App, type Labelling, labelRoles } from "../planner/role-labelling.js";
import { record } from "./feeds.js";
import type { Model } from "./stale-model.js";

export type { App, Labelling } from "../planner/role-labelling.js";

export function newApp(labelling: Labelling, failover: boolean, leaderOrdinal: number): App {
  return { labelling, failover, leader: leaderOrdinal, initial: new Set() };
}

function livePods(m: Model): PodView[] {
  return [...m.world.pods.values()]
    .map((p) => p.view)
    .filter((p) => p.deletionTimestamp === undefined)
    .sort((a, b) => a.ordinal - b.ordinal);
}

/** The app (re)labels its pods by its mode (planner/role-labelling.ts), as writes the feeds record. */
export function label(m: Model, app: App): void {
  labelRoles(m.world, app);
  record(m);
}

/** The pods the app started with (initialOnly keeps labelling only those). */
export function rememberInitialPods(m: Model, app: App): void {
  for (const pod of m.world.pods.values()) app.initial.add(pod.view.uid);
}

/** `kubectl petset promote` (or `--full`) on the step the PetSet's status shows. */
export function promote(m: Model, full: boolean): void {
  const at = m.world.petSet.status?.rolloutStep;
  if (at === undefined) return;
  const value = `${at.version}#${full ? "full" : at.step}`;
  const annotations = { ...(m.world.petSet.metadata.annotations ?? {}), [Annotations.promote]: value };
  if (m.world.petSet.metadata.annotations?.[Annotations.promote] === value) return;
  m.world.petSet = { ...m.world.petSet, metadata: { ...m.world.petSet.metadata, annotations } };
  record(m);
}

/** The outside actor of External asks the pod to move to the target it was told. */
export function request(m: Model, ordinal: number): void {
  const sim = m.world.pods.get(`${m.world.petSet.metadata.name}-${ordinal}`);
  if (sim === undefined || sim.view.targetVersion === undefined) return;
  const value = String(sim.view.targetVersion);
  if (sim.view.annotations[Annotations.updateRequested] === value) return;
  sim.view = {
    ...sim.view,
    annotations: { ...sim.view.annotations, [Annotations.updateRequested]: value },
    resourceVersion: String(++m.world.serial),
  };
  record(m);
}

/**
 * A condemned leader without a switchover hook: the human moves the role to a pet that stays;
 * scaled to zero (no pet stays), the human demotes it and turns failover off.
 */
export function moveCondemnedLeader(m: Model, app: App): void {
  const { start } = m.world.petSet.spec.ordinals;
  const end = start + m.world.petSet.spec.replicas;
  if (app.leader < end && app.leader >= start) return;
  const staying = livePods(m).filter((p) => p.ordinal >= start && p.ordinal < end);
  const next = staying.find((p) => p.ready) ?? staying[0];
  if (next !== undefined) app.leader = next.ordinal;
  else if (start === end) {
    app.leader = -1;
    app.failover = false;
  }
}
