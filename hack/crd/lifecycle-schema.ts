/**
 * OpenAPI schemas of lifecycle hooks (src/api/lifecycle.ts): `spec.lifecycle` of a PetSet and
 * the hook records on PetSetVersion / PetSet status. CEL rules say which handlers and
 * failure policies each hook point accepts, so `kubectl apply` names the field at fault.
 */
import {
  FailurePolicies,
  HookLimits,
  type HookName,
  HookNames,
  HookPhases,
  LifecycleHookNames,
} from "../../src/api/index.js";
import type { CelRule } from "./rules.js";
import type { Schema } from "./structural.js";

const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const strings = (description: string): Schema => ({
  type: "array",
  description,
  maxItems: 256,
  items: { type: "string", maxLength: 4096 },
});

const HANDLERS = ["exec", "job", "webhook", "external"] as const;

function handlerRules(hook: HookName): CelRule[] {
  const count = HANDLERS.map((h) => `(has(self.${h}) ? 1 : 0)`).join(" + ");
  const rules: CelRule[] = [
    {
      rule: `${count} == 1`,
      message: "exactly one handler is required: exec, job, webhook or external",
      reason: "FieldValueInvalid",
    },
  ];
  if (hook === "preRollout" || hook === "postRollout" || hook === "fence") {
    rules.push({
      rule: "!has(self.exec)",
      message:
        hook === "fence"
          ? "exec cannot reach a lost node: use job, webhook or external"
          : `${hook} runs once per version, not in a pet: use job, webhook or external`,
      fieldPath: ".exec",
      reason: "FieldValueForbidden",
    });
  }
  if (hook === "fence") {
    rules.push({
      rule: "!has(self.failurePolicy) || self.failurePolicy == 'Pause'",
      message: "a fence can only Pause on failure (Ignore would give a pet a second pod)",
      fieldPath: ".failurePolicy",
      reason: "FieldValueInvalid",
    });
  } else if (hook !== "preUpdate" && hook !== "postUpdate") {
    rules.push({
      rule: "!has(self.failurePolicy) || self.failurePolicy != 'Rollback'",
      message: "Rollback is allowed on update hooks only (preUpdate, postUpdate)",
      fieldPath: ".failurePolicy",
      reason: "FieldValueInvalid",
    });
  }
  return rules;
}

const HOOK_DOCS: Record<HookName, string> = {
  preRollout: "Once per version, before any pet moves to it (a Job runs with the new version's template).",
  preUpdate: "Before a pet's pod is deleted or patched for an update, in the pod about to go.",
  postUpdate: "After a pet runs the new version and is available, in the new pod; the next pet waits.",
  postRollout: "Once per version, after every pet runs it and every postUpdate succeeded.",
  preScaleDown: "Before a condemned pet's pod is deleted; its claims stay until it succeeds.",
  switchover:
    "Before the leader's pod is deleted or patched (update or scale-down), in the leader's pod; PETSET_CANDIDATE names a follower already at the target.",
  fence:
    "Once a pet's node has been lost for afterSeconds: must make sure that node can no longer run the pet or write its volumes (power off, isolate, detach). Only after it succeeded is the pod force-deleted and the pet moved.",
};

export function hookSchema(hook: HookName): Schema {
  return {
    type: "object",
    description: `${HOOK_DOCS[hook]} Exactly one handler.`,
    required: ["timeoutSeconds"],
    "x-kubernetes-validations": handlerRules(hook),
    properties: {
      exec: {
        type: "object",
        description:
          "Run a command in a container of the pet's pod (pods/exec); exit code 0 is success. The context is passed as environment variables through `env`.",
        required: ["command"],
        properties: {
          container: str("Container name; default: the first container.", { maxLength: 253 }),
          command: { ...strings("The command and its arguments."), minItems: 1 },
        },
      },
      job: {
        type: "object",
        description:
          "Run a batch/v1 Job built from the pet's pod template (preRollout: the new version's), owned by the PetSet; the Job succeeding is success.",
        properties: {
          container: str("Template container the Job runs; default: the first. The others are dropped.", {
            maxLength: 253,
          }),
          image: str("Image override.", { maxLength: 4096 }),
          command: strings("Command override."),
          args: strings("Arguments override."),
        },
      },
      webhook: {
        type: "object",
        description:
          "POST a HookReview (hooks.petset.dev/v1) to a babysitter; the answer says Succeeded, Failed or Retry after N seconds. No redirects.",
        required: ["url"],
        properties: {
          url: str("https://… (http:// only to a loopback address).", {
            maxLength: 2048,
            "x-kubernetes-validations": [
              {
                rule: "self.startsWith('https://') || self.startsWith('http://127.') || self.startsWith('http://localhost') || self.startsWith('http://[::1]')",
                message: "must be https://, or http:// to a loopback address",
                reason: "FieldValueInvalid",
              },
            ],
          }),
          caBundle: str(
            "Base64 PEM certificates that sign the server's certificate; default: system roots.",
            {
              maxLength: 65536,
            },
          ),
        },
      },
      external: {
        type: "object",
        description:
          "A handshake: the controller annotates the pod (or the PetSet, for set hooks) with hooks.petset.dev/request and waits for hooks.petset.dev/ack with the same id (kubectl petset hook ack, or kubectl petset observe).",
        properties: {},
      },
      timeoutSeconds: {
        type: "integer",
        format: "int32",
        minimum: 1,
        maximum: HookLimits.maxTimeoutSeconds,
        description: "A run that has not succeeded after this long fails. Required.",
      },
      retries: {
        type: "integer",
        format: "int32",
        minimum: 0,
        maximum: HookLimits.maxRetries,
        default: 0,
        description: "Runs after a failure before the failure policy applies.",
      },
      failurePolicy: str(
        "Pause: the rollout or scale-down stops at that pet (Progressing=False, reason HookFailed) until `kubectl petset hook retry` or a newer version; Ignore: continue; Rollback (update hooks): roll back to the last complete version.",
        { enum: [...FailurePolicies], default: "Pause" },
      ),
    },
  };
}

export function lifecycleSchema(): Schema {
  const properties: Record<string, Schema> = {};
  for (const hook of LifecycleHookNames) properties[hook] = hookSchema(hook);
  return {
    type: "object",
    description:
      "Hooks the controller runs around rollouts and scale-down: the babysitter contract (docs/hooks.md). Each run is recorded on the PetSetVersion it moves pets to.",
    properties,
  };
}

export function rolesSchema(): Schema {
  return {
    type: "object",
    description:
      "Who leads, as the app (or a sidecar) labels its pods: during a rolling update the leader's pet goes last, after a switchover; scale-down never removes the leader without one (docs/rollouts.md, Roles).",
    properties: {
      labelKey: str("The pod label that names a pod's role.", { default: "petset.dev/role", maxLength: 317 }),
      leader: str("The label value of the leader.", { default: "leader", maxLength: 63 }),
      switchover: hookSchema("switchover"),
    },
  };
}

export function hookRecordsSchema(description: string): Schema {
  const int = (d: string): Schema => ({ type: "integer", format: "int64", description: d });
  return {
    type: "array",
    description,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["id"],
    items: {
      type: "object",
      required: ["id", "hook", "handler", "phase", "attempts", "startedAt"],
      properties: {
        id: str("Stable across retries and controller restarts (PETSET_HOOK_ID)."),
        hook: str("The hook point.", { enum: [...HookNames] }),
        handler: str("exec, job, webhook or external.", { enum: [...HANDLERS] }),
        phase: str("Running, Succeeded, Failed or Cancelled.", { enum: [...HookPhases] }),
        ordinal: int("The pet's ordinal (per-pet hooks)."),
        pod: str("The pod the hook runs for."),
        podUID: str("That pod's uid."),
        fromVersion: int("The version the pet or set moves from."),
        toVersion: int("The version the pet or set moves to."),
        replicas: str("old→new replicas (preScaleDown)."),
        candidate: str("The follower the leader role goes to (switchover)."),
        attempts: int("Runs started."),
        failures: int("Runs that failed (timeouts included)."),
        startedAt: str("When the current run started.", { format: "date-time" }),
        finishedAt: str("When it finished.", { format: "date-time" }),
        message: str("What the handler said."),
        outcome: str("The failure policy applied: Paused, Ignored or RolledBack.", {
          enum: ["Paused", "Ignored", "RolledBack"],
        }),
      },
    },
  };
}
