/**
 * One step of a replica's sync as the API performs it (see stale-model.ts): the API's
 * preconditions (uid/resourceVersion → 409, NotFound, AlreadyExists on a taken name), the
 * expectations the executor records for it, and the change applied to the truth with the
 * invariants checked (invariants.ts).
 */
import type { PetSetVersion } from "../../../../src/api/index.js";
import type { Expectation } from "../../../../src/controller/expectations.js";
import { record } from "./feeds.js";
import { applyChecked } from "./invariants.js";
import { bindNew, forceDeleteLost } from "./nodes.js";
import { type InFlight, type Model, type ModelStep, noteWrite, type Replica } from "./stale-model.js";

export type Outcome = "ok" | "conflict" | "notFound" | "alreadyExists";

export function perform(
  m: Model,
  r: Replica,
  f: InFlight,
  step: ModelStep,
  expect: (e: Expectation) => void,
): Outcome {
  const { world } = m;
  if (step.kind === "createVersion") {
    const name = step.version.metadata.name ?? "";
    // Intent first (sync.ts, expectBefore): the version is expected before the POST.
    expect({ kind: "present", resource: "petsetversions", name });
    if (world.versions.some((v) => v.metadata.name === name)) return "alreadyExists";
    noteWrite(m, r);
    createVersion(m, step.version);
    return "ok";
  }
  if (step.kind === "createPod") {
    const name = step.pod.metadata?.name ?? "";
    if (world.pods.has(name)) {
      expect({ kind: "present", resource: "pods", name });
      return "alreadyExists";
    }
    applyChecked(m, r, f, step);
    if (m.nodes !== undefined) bindNew(m, name);
    expect({ kind: "present", resource: "pods", name, uid: world.pods.get(name)?.view.uid ?? "" });
    return "ok";
  }
  if (step.kind === "createClaim") {
    const name = step.claim.metadata?.name ?? "";
    if (!world.claims.has(name)) applyChecked(m, r, f, step);
    expect({ kind: "present", resource: "persistentvolumeclaims", name });
    return "ok";
  }
  if (step.kind === "deleteClaim") {
    applyChecked(m, r, f, step);
    expect({ kind: "gone", resource: "persistentvolumeclaims", name: step.claimName, uid: step.uid });
    return "ok";
  }
  if (step.kind === "patchClaim") {
    // Claims follow versions (claim-updates.ts): a resourceVersion precondition, like a pod patch.
    const claim = world.claims.get(step.claimName);
    const changed = { kind: "changed", resource: "persistentvolumeclaims", name: step.claimName } as const;
    if (claim === undefined || claim.uid !== step.uid) return "notFound";
    expect({ ...changed, uid: step.uid, from: step.resourceVersion });
    if (claim.resourceVersion !== step.resourceVersion) return "conflict";
    applyChecked(m, r, f, step);
    return "ok";
  }
  if (step.kind === "rollbackTo") {
    const truthIndex = (m.feeds.get("petset")?.length ?? 0) - 1;
    expect({
      kind: "changed",
      resource: "petsets",
      name: "web",
      uid: "set-uid",
      from: String(f.petSetIndex),
    });
    if (f.petSetIndex !== truthIndex) return "conflict";
    applyChecked(m, r, f, step);
    return "ok";
  }
  if (step.kind === "recordVersionStatus") {
    const version = world.versions.find((v) => v.spec.version === step.version);
    const changed = { kind: "changed", resource: "petsetversions", name: step.versionName } as const;
    expect({ ...changed, from: step.resourceVersion });
    if (version === undefined) return "notFound";
    if ((version.metadata.resourceVersion ?? "") !== step.resourceVersion) return "conflict";
    applyChecked(m, r, f, step);
    return "ok";
  }
  if (step.kind === "forceDeleteLostPod") return forceDeleteLost(m, r, step, expect);
  const pod = world.pods.get(step.podName);
  if (pod === undefined || pod.view.uid !== step.uid) {
    if (step.kind === "deletePod") {
      expect({ kind: "gone", resource: "pods", name: step.podName, uid: step.uid });
      return "notFound";
    }
    return "notFound";
  }
  if (pod.view.resourceVersion !== step.resourceVersion) {
    expect({
      kind: "changed",
      resource: "pods",
      name: step.podName,
      uid: step.uid,
      from: step.resourceVersion,
    });
    return "conflict";
  }
  applyChecked(m, r, f, step);
  if (step.kind === "deletePod")
    expect({ kind: "gone", resource: "pods", name: step.podName, uid: step.uid });
  else
    expect({
      kind: "changed",
      resource: "pods",
      name: step.podName,
      uid: step.uid,
      from: step.resourceVersion,
    });
  return "ok";
}

/** The API stores a version: uid, resourceVersion and creation time are the server's. */
export function createVersion(m: Model, version: PetSetVersion): void {
  const { world } = m;
  world.serial++;
  world.versions.push({
    ...structuredClone(version),
    metadata: {
      ...structuredClone(version.metadata),
      uid: `version-uid-${world.serial}`,
      resourceVersion: String(world.serial),
      creationTimestamp: new Date(world.now).toISOString(),
    },
  });
  world.versions.sort((a, b) => a.spec.version - b.spec.version);
  record(m);
}
