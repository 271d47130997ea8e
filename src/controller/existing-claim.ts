/**
 * A claim create that found the name taken (issue 24 item 6). As a StatefulSet does, the pet
 * uses the claim that exists: a user who pre-creates `data-web-0` to pre-bind a volume gets
 * that volume. The controller's claim cache only holds claims labelled `petset.dev/petset`,
 * so an existing claim without that label is one no cache will ever show: the planner would
 * create it again on every sync, and an expectation of it would hold every sync for the
 * expectation timeout. So, read uncached:
 *
 *  - gone since the create: nothing to expect; the plan stops (its pod would wait for a claim
 *    that is not there) and the next sync creates it.
 *  - labelled for this PetSet: the cache is only behind; the create's expectation stays.
 *  - without the label, and not controlled by anything else (or by this PetSet): labelled
 *    `petset.dev/petset` and `petset.dev/pod-index` (a merge patch with a resourceVersion
 *    precondition: a claim changed since the read is decided again), with a Normal Event
 *    ClaimLabelled. From then on it is the pet's claim: adopted when
 *    `persistentVolumeClaimRetentionPolicy.whenDeleted` is Delete (planner/ownership.ts), and
 *    subject to `whenScaled` like any claim the PetSet created, as StatefulSets treat them.
 *  - controlled by another controller, or labelled for another PetSet: never touched; the pet
 *    uses it as it is, nothing is expected of it, and a Warning Event ClaimNotLabelled says so.
 */
import type { V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { Labels, type PetSet, podName } from "../api/index.js";
import { ownedObjectMeta, petSetTarget } from "./adoption.js";
import { isConflict } from "./api-errors.js";
import type { ClaimControl } from "./claim-control.js";
import type { EventRecorder } from "./event-recorder.js";
import type { Withdraw } from "./expectations.js";
import type { CreateClaimStep } from "./planner/index.js";
import { controllerOf } from "./planner/ownership.js";

export const ExistingClaimReasons = {
  labelled: "ClaimLabelled",
  notLabelled: "ClaimNotLabelled",
} as const;

/** What became of the existing claim: "gone" means the plan was made on a stale view. */
export type ExistingClaim = "cached" | "labelled" | "foreign" | "gone";

export async function useExistingClaim(
  deps: { claims: ClaimControl; events?: EventRecorder },
  petSet: PetSet,
  step: CreateClaimStep,
  withdraw: Withdraw,
): Promise<ExistingClaim> {
  const namespace = petSet.metadata.namespace ?? "default";
  const setName = petSet.metadata.name ?? "";
  const name = step.claim.metadata?.name ?? "";
  const claim = await deps.claims.get(namespace, name);
  if (claim === undefined) {
    withdraw();
    return "gone";
  }
  const meta = ownedObjectMeta(claim);
  const labelledFor = meta.labels[Labels.petSet];
  if (labelledFor === setName) return "cached";
  const controller = controllerOf(meta);
  const record = (type: "Normal" | "Warning", reason: string, message: string) =>
    deps.events?.record(petSetTarget(petSet), { type, reason, message }) ?? Promise.resolve();
  if (labelledFor !== undefined || (controller !== undefined && controller.uid !== petSet.metadata.uid)) {
    // The cache shows a claim labelled for another PetSet, or none: either way nothing to wait for.
    withdraw();
    const holder =
      labelledFor !== undefined
        ? `is labelled ${Labels.petSet}=${labelledFor}`
        : `is controlled by ${controller?.kind}/${controller?.name} (uid ${controller?.uid})`;
    await record(
      "Warning",
      ExistingClaimReasons.notLabelled,
      `claim ${name} existed and ${holder}: pet ${podOf(setName, step)} uses it as it is, and PetSet ${setName} neither labels, adopts nor deletes it`,
    );
    return "foreign";
  }
  try {
    await deps.claims.addLabels(namespace, name, meta.resourceVersion, identityLabels(step.claim));
  } catch (err) {
    // Changed since the read: the next sync decides again on what it finds then.
    if (isConflict(err)) withdraw();
    throw err;
  }
  await record(
    "Normal",
    ExistingClaimReasons.labelled,
    `claim ${name} existed without label ${Labels.petSet}=${setName}: labelled it, and pet ${podOf(setName, step)} uses it`,
  );
  return "labelled";
}

/** The labels that make a claim the pet's for the cache and the planner. */
function identityLabels(claim: V1PersistentVolumeClaim): Record<string, string> {
  const labels = claim.metadata?.labels ?? {};
  const out: Record<string, string> = {};
  for (const key of [Labels.petSet, Labels.podIndex]) {
    const value = labels[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function podOf(setName: string, step: CreateClaimStep): string {
  return podName(setName, step.ordinal);
}
