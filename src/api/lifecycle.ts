/**
 * Lifecycle hooks (docs/hooks.md): what a PetSet declares in `spec.lifecycle`, and the
 * records of hook runs the controller keeps on PetSetVersion status (the durable state of
 * every hook's state machine; the PetSet's `status.hooks` is derived from them).
 */
import { z } from "zod";

/** Hook points of `spec.lifecycle`, in the order a rollout meets them. */
export const LifecycleHookNames = [
  "preRollout",
  "preUpdate",
  "postUpdate",
  "postRollout",
  "preScaleDown",
] as const;
/** Every hook a record can name: the lifecycle ones, `spec.roles.switchover` and `spec.nodeFailure.fence`. */
export const HookNames = [...LifecycleHookNames, "switchover", "fence"] as const;
export type HookName = (typeof HookNames)[number];

/** Hooks that run once per version (no pod of their own). */
export const SetHooks: readonly HookName[] = ["preRollout", "postRollout"];
/** Hooks whose failure may roll the PetSet back (update hooks). */
export const RollbackHooks: readonly HookName[] = ["preUpdate", "postUpdate"];

export const FailurePolicies = ["Pause", "Ignore", "Rollback"] as const;
export type FailurePolicy = (typeof FailurePolicies)[number];

export const HookLimits = {
  maxTimeoutSeconds: 86_400,
  maxRetries: 10,
  /** Jobs of finished hooks are deleted this long after they finish. */
  jobTtlSeconds: 600,
} as const;

export const ExecHandlerSchema = z.object({
  /** Container of the pet's pod; default: the first container. */
  container: z.string().optional(),
  command: z.array(z.string()).min(1),
});

export const JobHandlerSchema = z.object({
  /** Container of the template the Job runs (default: the first); the others are dropped. */
  container: z.string().optional(),
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
});

export const WebhookHandlerSchema = z.object({
  /** https://…, or http:// to a loopback address. */
  url: z.string(),
  /** PEM bundle (base64, as admission webhooks) trusted for the server's certificate. */
  caBundle: z.string().optional(),
});

export const HookSpecSchema = z.object({
  exec: ExecHandlerSchema.optional(),
  job: JobHandlerSchema.optional(),
  webhook: WebhookHandlerSchema.optional(),
  external: z.object({}).optional(),
  timeoutSeconds: z.number().int().min(1).max(HookLimits.maxTimeoutSeconds),
  retries: z.number().int().min(0).max(HookLimits.maxRetries).default(0),
  failurePolicy: z.enum(FailurePolicies).default("Pause"),
});
export type HookSpec = z.infer<typeof HookSpecSchema>;
export type HookHandlerKind = "exec" | "job" | "webhook" | "external";

export function handlerKind(spec: HookSpec): HookHandlerKind {
  if (spec.exec !== undefined) return "exec";
  if (spec.job !== undefined) return "job";
  if (spec.webhook !== undefined) return "webhook";
  return "external";
}

export const LifecycleSchema = z.object({
  preRollout: HookSpecSchema.optional(),
  preUpdate: HookSpecSchema.optional(),
  postUpdate: HookSpecSchema.optional(),
  postRollout: HookSpecSchema.optional(),
  preScaleDown: HookSpecSchema.optional(),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

export const HookPhases = ["Running", "Succeeded", "Failed", "Cancelled"] as const;
export type HookPhase = (typeof HookPhases)[number];

/**
 * One hook run, kept on the status of the version it moves pets to (preScaleDown: the
 * version the condemned pod runs). `id` is stable across retries and controller restarts:
 * hooks are at-least-once and the id lets them be idempotent.
 */
export const HookRecordSchema = z.object({
  id: z.string(),
  hook: z.enum(HookNames),
  handler: z.enum(["exec", "job", "webhook", "external"]),
  phase: z.enum(HookPhases),
  /** Pet ordinal and pod name/uid, for per-pet hooks. */
  ordinal: z.number().int().optional(),
  pod: z.string().optional(),
  podUID: z.string().optional(),
  fromVersion: z.number().int().optional(),
  toVersion: z.number().int().optional(),
  /** "old→new" replicas, for preScaleDown. */
  replicas: z.string().optional(),
  /** switchover: the follower (already at the target) to hand the leader role to. */
  candidate: z.string().optional(),
  /** Runs started (retries and resumed runs included). */
  attempts: z.number().int().min(0),
  /** Runs that failed (a run that times out fails). */
  failures: z.number().int().min(0).default(0),
  /** When the current run started: its timeout counts from here. */
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  message: z.string().optional(),
  /** The failure policy that applied when the run failed for good. */
  outcome: z.enum(["Paused", "Ignored", "RolledBack"]).optional(),
});
export type HookRecord = z.infer<typeof HookRecordSchema>;

/** Annotations of the `external` handshake and of `kubectl petset hook retry`. */
export const HookAnnotations = {
  /** On the pod (per-pet hooks) or the PetSet (set hooks): JSON HookRequest, written by the controller. */
  request: "hooks.petset.dev/request",
  /** Written by whoever answers: JSON {id, result: Succeeded|Failed, message?}. */
  ack: "hooks.petset.dev/ack",
  /** On the PetSet: `<hook id>#<attempts>` asks the controller to run a failed hook again. */
  retry: "hooks.petset.dev/retry",
} as const;

/** What every handler is told (env vars of exec and Job, body of a webhook, external request). */
export const HookContextSchema = z.object({
  id: z.string(),
  hook: z.enum(HookNames),
  petSet: z.string(),
  namespace: z.string(),
  pod: z.string().optional(),
  ordinal: z.number().int().optional(),
  fromVersion: z.number().int().optional(),
  toVersion: z.number().int().optional(),
  generation: z.number().int().optional(),
  replicas: z.string().optional(),
  candidate: z.string().optional(),
  attempt: z.number().int(),
});
export type HookContext = z.infer<typeof HookContextSchema>;

export const HookAckSchema = z.object({
  id: z.string(),
  result: z.enum(["Succeeded", "Failed"]),
  message: z.string().optional(),
});
export type HookAck = z.infer<typeof HookAckSchema>;

/** The environment a hook sees: PETSET_HOOK, PETSET_NAME, … (docs/hooks.md). */
export function hookEnv(ctx: HookContext): Record<string, string> {
  const env: Record<string, string> = {
    PETSET_HOOK: ctx.hook,
    PETSET_HOOK_ID: ctx.id,
    PETSET_NAME: ctx.petSet,
    PETSET_NAMESPACE: ctx.namespace,
    PETSET_HOOK_ATTEMPT: String(ctx.attempt),
  };
  if (ctx.pod !== undefined) env.PETSET_POD = ctx.pod;
  if (ctx.ordinal !== undefined) env.PETSET_ORDINAL = String(ctx.ordinal);
  if (ctx.fromVersion !== undefined) env.PETSET_FROM_VERSION = String(ctx.fromVersion);
  if (ctx.toVersion !== undefined) env.PETSET_TO_VERSION = String(ctx.toVersion);
  if (ctx.generation !== undefined) env.PETSET_GENERATION = String(ctx.generation);
  if (ctx.replicas !== undefined) env.PETSET_REPLICAS = ctx.replicas;
  if (ctx.candidate !== undefined) env.PETSET_CANDIDATE = ctx.candidate;
  return env;
}

/** `spec.roles`: which pod leads, so the leader's pet is updated last (docs/rollouts.md, Roles). */
export const RolesSchema = z.object({
  /** The pod label the app (or a sidecar) sets; petset never sets or guesses it. */
  labelKey: z.string().default("petset.dev/role"),
  /** The label value of the leader. */
  leader: z.string().default("leader"),
  /** Runs before the leader's pod is deleted or patched (update or scale-down); PETSET_CANDIDATE names a follower at the target. */
  switchover: HookSpecSchema.optional(),
});
export type Roles = z.infer<typeof RolesSchema>;

/** The spec of a hook: `spec.lifecycle.<hook>`, `spec.roles.switchover` or `spec.nodeFailure.fence`. */
export function hookSpecOf(
  spec: {
    lifecycle?: Lifecycle | undefined;
    roles?: Roles | undefined;
    nodeFailure?: { fence?: HookSpec | undefined } | undefined;
  },
  hook: HookName,
): HookSpec | undefined {
  if (hook === "fence") return spec.nodeFailure?.fence;
  return hook === "switchover" ? spec.roles?.switchover : spec.lifecycle?.[hook];
}
