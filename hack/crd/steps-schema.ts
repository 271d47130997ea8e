/**
 * Schemas of step-wise rollouts (docs/rollouts.md "Steps"): the `rollingUpdate.steps` list and
 * its shorthands, the PetSet's derived `status.rolloutStep`, and the `status.steps` record on a
 * PetSetVersion. Mirrors src/api/petset.ts and src/api/petset-version.ts.
 */
import { MAX_ROLLOUT_STEPS } from "../../src/api/index.js";
import { petsNotNegative, rolloutStepOneOf, stepsExclusive } from "./rules.js";
import type { Schema } from "./structural.js";

const time = (description: string): Schema => ({ type: "string", format: "date-time", description });

/** The fields `steps`, `pauseOnSpecChange`, `pauseAfterEachPet` of `rollingUpdate`. */
export function rollingUpdateStepFields(): Record<string, Schema> {
  return {
    steps: {
      type: "array",
      maxItems: MAX_ROLLOUT_STEPS,
      description:
        "A step-wise canary: each item is {pets: N or N%} (move pets, from the highest ordinal down, until N of them run the new version; percentages of replicas round down, at least 1) or {pause: {duration?}} (wait for kubectl petset promote, or for the duration). After the last step the rollout finishes; the partition still applies. A new version restarts the steps; a rollback skips them.",
      items: {
        type: "object",
        "x-kubernetes-validations": [rolloutStepOneOf, petsNotNegative],
        properties: {
          pets: {
            "x-kubernetes-int-or-string": true,
            // Exactly this anyOf (no minimum inside): kube accepts nothing else as int-or-string.
            anyOf: [{ type: "integer" }, { type: "string" }],
            pattern: "^[0-9]+%$",
            description: "Pets (from the highest ordinal down) that run the new version at this step.",
          },
          pause: {
            type: "object",
            description: "Wait: until promoted (kubectl petset promote), or for duration.",
            properties: {
              duration: {
                type: "string",
                pattern: "^[0-9]+(s|m|h)$",
                maxLength: 16,
                description: "How long to pause: 30s, 10m, 2h. Without it, until promoted.",
              },
            },
          },
        },
      },
    },
    pauseOnSpecChange: {
      type: "boolean",
      description: "Shorthand: a first step {pause: {}}: no pet moves to a new version until promoted.",
    },
    pauseAfterEachPet: {
      type: "boolean",
      description:
        "Shorthand (not with steps): steps {pets: 1}, {pause: {}}, {pets: 2}, {pause: {}}, ... for the pets at or above the partition.",
    },
  };
}

/** The x-kubernetes-validations `rollingUpdate` gains. */
export const rollingUpdateStepRules = [stepsExclusive];

/** PetSet `status.rolloutStep`. */
export function rolloutStepStatusSchema(): Schema {
  const int = (description: string): Schema => ({ type: "integer", format: "int32", description });
  return {
    type: "object",
    description: "The step-wise rollout in flight (derived from the target version's status.steps).",
    properties: {
      version: int("The version rolling out."),
      step: int("The step reached, 1-based."),
      total: int("The number of steps."),
      description: { type: "string", description: "The step: pets N, pause, pause 10m." },
      waitingFor: {
        type: "string",
        enum: ["pets", "promote", "time"],
        description:
          "pets: moving pets to the step's count; promote: kubectl petset promote; time: the pause's duration.",
      },
      resumeAt: time("When a pause with a duration ends."),
    },
  };
}

/** PetSetVersion `status.steps`. */
export function versionStepsSchema(): Schema {
  return {
    type: "object",
    description:
      "Step-wise rollout of this version (rollingUpdate.steps): the step reached and its promotions.",
    properties: {
      index: {
        type: "integer",
        format: "int32",
        minimum: 0,
        description: "0-based step reached; the number of steps when done.",
      },
      pausedAt: time("When the pause at the step reached began."),
      pets: {
        type: "integer",
        format: "int32",
        minimum: 0,
        description:
          "Pets (from the highest ordinal down) the pause holds at this version: frozen when it began.",
      },
      promotedAt: time("The last promotion."),
      promotion: { type: "string", description: "The petset.dev/promote value applied last." },
    },
  };
}
