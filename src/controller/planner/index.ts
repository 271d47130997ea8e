export { resolveMaxUnavailable } from "./max-unavailable.js";
export { AvailableReasons, PlanEventReasons } from "./plan-events.js";
export { planRollout } from "./plan-rollout.js";
export type * from "./plan-types.js";
export {
  availableAt,
  isAvailable,
  isBroken,
  isRunningAndReady,
  isTerminating,
} from "./pod-health.js";
export { buildClaim, buildPod, ownerReferenceTo, PodInfoVolume, versionMarks } from "./pod-template.js";
export { canonicalJson } from "./version-index.js";
export type { ClaimView, ContainerView, PodPhase, PodView } from "./views.js";
export { claimViewFromV1, FailingReasons, podViewFromV1Pod } from "./views.js";
