/** The invariants the model checker holds the truth to after every change. See stale-model.ts. */
import { isAvailable, resolveMaxUnavailable, type Step } from "../../../../src/controller/planner/index.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { mutate } from "../planner/simulate.js";
import { record, seen } from "./feeds.js";
import { type InFlight, type Model, noteWrite, type Replica } from "./stale-model.js";

// ------------------------------------------------------------------ invariants

export function applyChecked(m: Model, r: Replica, f: InFlight, step: Step): void {
  noteWrite(m, r);
  const spec = f.view.petSet.spec;
  const moves =
    step.kind === "patchPodImages" ||
    (step.kind === "deletePod" && (step.reason === "update" || step.reason === "replace-broken"));
  const partitionOrdinal = spec.ordinals.start + (spec.updateStrategy.rollingUpdate?.partition ?? 0);
  const violate = (msg: string) => m.violations.push(`t=${m.world.now} replica ${r.id} ${step.kind}: ${msg}`);
  if (moves && spec.paused) violate(`moved ${"podName" in step ? step.podName : ""} while paused`);
  if (
    moves &&
    "ordinal" in step &&
    spec.updateStrategy.type === "RollingUpdate" &&
    step.ordinal < partitionOrdinal
  )
    violate(`updated ordinal ${step.ordinal} below the partition`);
  const isUpdate = (step.kind === "deletePod" && step.reason === "update") || step.kind === "patchPodImages";
  const before = isUpdate ? knownUnavailable(m, r, f) : 0;
  mutate(m.world, step);
  record(m);
  if (isUpdate) {
    const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
    const after = knownUnavailable(m, r, f);
    if (after > before && after > max) violate(`${after} pets unavailable > maxUnavailable ${max}`);
  }
}

/**
 * Pets unavailable in the truth, leaving out those a user disrupted while the replica's view
 * still shows them available (no controller can count what it has not been told).
 */
function knownUnavailable(m: Model, r: Replica, f: InFlight): number {
  const spec = f.view.petSet.spec;
  const minReady = spec.minReadySeconds * 1000;
  let n = 0;
  for (let o = spec.ordinals.start; o < spec.ordinals.start + spec.replicas; o++) {
    const name = `${m.world.petSet.metadata.name}-${o}`;
    const truth = m.world.pods.get(name)?.view;
    if (truth !== undefined && isAvailable(truth, minReady, m.world.now)) continue;
    const viewed = seen<PodView>(m, r, `pod/${name}`);
    const unseen =
      viewed !== undefined &&
      m.userDeleted.has(viewed.uid) &&
      viewed.deletionTimestamp === undefined &&
      (truth === undefined || truth.uid === viewed.uid);
    if (!unseen) n++;
  }
  return n;
}

export function checkTruth(m: Model): void {
  const contents = new Set([...m.world.pods.values()].map((p) => p.view.hash));
  if (contents.size > 2) {
    const pods = [...m.world.pods.values()].map((p) => `${p.view.name}@v${p.view.version}`).join(" ");
    m.violations.push(`t=${m.world.now}: ${contents.size} versions live: ${pods}`);
  }
  const numbers = m.world.versions.map((v) => v.spec.version);
  if (numbers.some((n, i) => n !== i + 1))
    m.violations.push(`version numbers not 1..N: ${numbers.join(",")}`);
}
