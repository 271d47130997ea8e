import {
  ConditionTypes,
  type PetSetSpecInput,
  type PetSetStatus,
  type PetSetVersion,
} from "../../../../src/api/index.js";
import { type Plan, planRollout, type Step } from "../../../../src/controller/planner/index.js";
import type { ClaimView, PodView } from "../../../../src/controller/planner/views.js";
import { makePetSet, makePod, makeVersion } from "./fixtures.js";

/** Shared helpers of the planner table tests. */
export const NOW = 10_000_000;
export const v1 = makeVersion(1, "app:1");
export const v2 = makeVersion(2, "app:2", { createdAt: NOW - 1000 });
export const v3 = makeVersion(3, "app:3", { createdAt: NOW - 500 });

export interface Case {
  spec?: Partial<PetSetSpecInput>;
  status?: Partial<PetSetStatus>;
  versions?: PetSetVersion[];
  pods?: PodView[];
  claims?: ClaimView[];
  now?: number;
  drivingSince?: number;
}

export function plan(c: Case): Plan {
  return planRollout({
    petSet: makePetSet({ replicas: 3, ...c.spec }, c.status),
    versions: c.versions ?? [v1],
    pods: c.pods ?? [],
    claims: c.claims ?? [],
    now: c.now ?? NOW,
    ...(c.drivingSince !== undefined ? { drivingSince: c.drivingSince } : {}),
  });
}

/**
 * Compact view of the pod, claim and PetSet steps: "create web-1@v2", "delete web-2 (update)",
 * ... Version facts (recordVersionStatus) are left out: see `facts`.
 */
export function summary(p: Plan): string[] {
  return p.steps.flatMap((s: Step): string[] => (s.kind === "recordVersionStatus" ? [] : [describe(s)]));
}

/** The facts a plan records: "v2 rolloutStartedAt", ... */
export function facts(p: Plan): string[] {
  return p.steps.flatMap((s) =>
    s.kind === "recordVersionStatus" ? s.facts.map((f) => `v${s.version} ${f}`) : [],
  );
}

function describe(s: Step): string {
  switch (s.kind) {
    case "createPod":
      return `create ${s.pod.metadata?.name}@v${s.version}`;
    case "deletePod":
      return `delete ${s.podName} (${s.reason})`;
    case "patchPodImages":
      return `patch ${s.podName}@v${s.toVersion}`;
    case "relabelPod":
      return `relabel ${s.podName}@v${s.toVersion}`;
    case "annotateTargetVersion":
      return `announce ${s.podName}@v${s.targetVersion}`;
    case "createClaim":
      return `createClaim ${s.claim.metadata?.name}`;
    case "deleteClaim":
      return `deleteClaim ${s.claimName} (${s.reason})`;
    case "rollbackTo":
      return `rollbackTo v${s.version}`;
    default:
      return s.kind;
  }
}

/** The plan's steps without the version facts. */
export const changes = (p: Plan) => p.steps.filter((s) => s.kind !== "recordVersionStatus");
export const moves = (p: Plan) => summary(p).filter((s) => !s.startsWith("announce"));
export const progressing = (p: Plan) =>
  p.status.conditions.find((c) => c.type === ConditionTypes.progressing);
export const at = (version: PetSetVersion, ordinals: number[], opts: Parameters<typeof makePod>[2] = {}) =>
  ordinals.map((o) => makePod(o, version, { targetVersion: version.spec.version, ...opts }));

/** Both pod-management policies: every behaviour table runs under each. */
export const policies = ["OrderedReady", "Parallel"] as const;

export function withPolicy(policy: (typeof policies)[number]) {
  return (c: Case): Case => ({ ...c, spec: { podManagementPolicy: policy, ...c.spec } });
}
