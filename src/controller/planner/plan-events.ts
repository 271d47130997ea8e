/**
 * Reasons of the Events the planner asks for (the executor records them). Candidates for
 * src/api/names.ts once the contract lists them.
 */
export const PlanEventReasons = {
  rolloutStarted: "RolloutStarted",
  rolloutQueued: "RolloutQueued",
  rolloutSuperseded: "RolloutSuperseded",
  rolloutComplete: "RolloutComplete",
  targetVersion: "TargetVersion",
  replacingBrokenPod: "ReplacingBrokenPod",
  brokenPet: "BrokenPet",
  progressDeadlineExceeded: "ProgressDeadlineExceeded",
  rolledBack: "RolledBack",
  paused: "Paused",
} as const;

/** Reasons of the Available condition (Progressing reasons live in src/api/names.ts). */
export const AvailableReasons = {
  minimumAvailable: "MinimumReplicasAvailable",
  minimumUnavailable: "MinimumReplicasUnavailable",
} as const;
