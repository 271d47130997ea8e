/** The invariants the model checker holds the truth to after every change. See stale-model.ts. */
import type { PetSetVersion } from "../../../../src/api/index.js";
import { isAvailable, resolveMaxUnavailable, type Step } from "../../../../src/controller/planner/index.js";
import { versionedContent } from "../../../../src/versions/content.js";
import { hashContent } from "../../../../src/versions/hash.js";
import { claimFollowViolations, claimPatchViolations, mutate } from "../planner/simulate.js";
import { record } from "./feeds.js";
import { isUpdateMove, judgeRolesAndSteps } from "./roles-steps-invariants.js";
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
  // A targeted replacement (issue 28) is held to the same budget as an update.
  const replacement = step.kind === "deletePod" && step.reason === "replace";
  const isUpdate = isUpdateMove(step);
  if (isUpdate) for (const finding of judgeRolesAndSteps(f, step)) violate(finding);
  const budgeted = isUpdate || replacement;
  const before = budgeted ? knownUnavailable(m, f) : 0;
  // Claims follow versions (issue 26): never below the partition, never a shrink.
  if (step.kind === "patchClaim")
    for (const v of claimPatchViolations(m.world, step, partitionOrdinal)) violate(v);
  mutate(m.world, step);
  for (const v of claimFollowViolations(m.world)) violate(v);
  if (isUpdate) f.moved.add(step.podName);
  record(m);
  if (budgeted) {
    const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
    const after = knownUnavailable(m, f);
    if (after > before && after > max) violate(`${after} pets unavailable > maxUnavailable ${max}`);
  }
}

/**
 * Pets unavailable in the truth, leaving out those a user disrupted (or whose node was lost)
 * while the view the sync planned from still showed them available (no controller can count what it has not been
 * told; a disruption the watch delivers mid-sync was not in the plan either).
 */
function knownUnavailable(m: Model, f: InFlight): number {
  const spec = f.view.petSet.spec;
  const minReady = spec.minReadySeconds * 1000;
  let n = 0;
  for (let o = spec.ordinals.start; o < spec.ordinals.start + spec.replicas; o++) {
    const name = `${m.world.petSet.metadata.name}-${o}`;
    const truth = m.world.pods.get(name)?.view;
    if (truth !== undefined && isAvailable(truth, minReady, m.world.now)) continue;
    const viewed = f.view.pods.find((p) => p.name === name);
    const unseen =
      viewed !== undefined &&
      m.userDeleted.has(viewed.uid) &&
      viewed.deletionTimestamp === undefined &&
      (truth === undefined || truth.uid === viewed.uid);
    // A node lost (nodes.ts) after the view showed its pet available: as unseen as a user's delete.
    const lostUnseen =
      viewed !== undefined &&
      truth?.uid === viewed.uid &&
      truth.nodeName !== undefined &&
      m.nodes?.truth.get(truth.nodeName ?? "")?.ready !== "True" &&
      isAvailable(viewed, minReady, m.world.now);
    if (!unseen && !lostUnseen) n++;
  }
  return n;
}

export function checkTruth(m: Model): void {
  const contents = new Set([...m.world.pods.values()].map((p) => p.view.hash));
  if (contents.size > 2) {
    const pods = [...m.world.pods.values()].map((p) => `${p.view.name}@v${p.view.version}`).join(" ");
    m.violations.push(`t=${m.world.now}: ${contents.size} versions live: ${pods}`);
  }
  for (const finding of versionFindings(m.world.petSet.metadata.name ?? "", m.world.versions))
    if (!m.violations.includes(finding)) m.violations.push(finding);
}

/**
 * SPEC rule 1 on the recorded history (the numbers and names the recorder chose): numbers
 * 1..N, each named `<set>-v<N>`, no two consecutive versions of one content, and older
 * content repeated only with rollbackOf.
 */
export function versionFindings(set: string, versions: readonly PetSetVersion[]): string[] {
  const out: string[] = [];
  const numbers = versions.map((v) => v.spec.version);
  if (numbers.some((n, i) => n !== i + 1)) out.push(`version numbers not 1..N: ${numbers.join(",")}`);
  const first = new Map<string, number>();
  versions.forEach((v, i) => {
    if (v.metadata.name !== `${set}-v${v.spec.version}`)
      out.push(`version ${v.metadata.name} holds number ${v.spec.version}`);
    const prev = versions[i - 1];
    if (prev !== undefined && prev.spec.hash === v.spec.hash)
      out.push(`v${prev.spec.version} and v${v.spec.version} record the same content`);
    else if (first.has(v.spec.hash) && v.spec.rollbackOf === undefined)
      out.push(`v${v.spec.version} repeats v${first.get(v.spec.hash)} without rollbackOf`);
    if (!first.has(v.spec.hash)) first.set(v.spec.hash, v.spec.version);
  });
  return out;
}

/** The newest version holds the spec's content. */
export function recorded(m: Model): boolean {
  return m.world.versions.at(-1)?.spec.hash === hashContent(versionedContent(m.world.petSet.spec));
}

/** Once faults stop and the controller had time to settle: the newest version holds the spec (no change lost). */
export function checkRecorded(m: Model): void {
  const newest = m.world.versions.at(-1);
  const want = hashContent(versionedContent(m.world.petSet.spec));
  if (newest?.spec.hash !== want)
    m.violations.push(
      `the spec's content (${want}) is not recorded: newest version v${newest?.spec.version ?? "none"} holds ${newest?.spec.hash ?? "nothing"}`,
    );
}
