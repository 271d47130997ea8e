/**
 * Stages of the simulated kubelet, as data (after kwok's Stage API): a selector says which
 * objects a stage applies to, a delay says when, `next` says what happens (a status patch
 * built from a declarative template, a binding, a volume binding, a deletion, an Event).
 * The default stages live in `stages/default.yaml`; docs/simulated-kubelet.md explains the
 * format. Everything here is validated with zod when loaded, so a typo fails at start-up
 * with the file and the field named, not as a pod that silently never becomes Ready.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

export const StageResources = ["pods", "persistentvolumeclaims", "nodes"] as const;
export type StageResource = (typeof StageResources)[number];

/** A string equals, or one of in/notIn/exists. An absent value fails `in` and equality. */
export const ValueMatchSchema = z.union([
  z.string(),
  z.strictObject({ in: z.array(z.string()).min(1) }),
  z.strictObject({ notIn: z.array(z.string()).min(1) }),
  z.strictObject({ exists: z.boolean() }),
]);
export type ValueMatch = z.infer<typeof ValueMatchSchema>;

/** Matches one container, seen through its spec and its current status. */
export const ContainerMatchSchema = z.strictObject({
  /** The spec image ends with one of these (e.g. ":broken"). */
  imageSuffix: z.array(z.string().min(1)).min(1).optional(),
  /** The spec image differs from the image in the container's status (in-place update). */
  imageChanged: z.boolean().optional(),
  ready: z.boolean().optional(),
  /** The container's current state; "none" when it has no status yet. */
  state: z.enum(["running", "waiting", "terminated", "none"]).optional(),
});
export type ContainerMatch = z.infer<typeof ContainerMatchSchema>;

export const SelectorSchema = z.strictObject({
  /** metadata.deletionTimestamp is set. */
  deleting: z.boolean().optional(),
  /** Pods only: spec.nodeName is set. */
  scheduled: z.boolean().optional(),
  /** status.phase */
  phase: ValueMatchSchema.optional(),
  /** status.conditions[type].status, by type. */
  conditions: z.record(z.string(), ValueMatchSchema).optional(),
  labels: z.record(z.string(), ValueMatchSchema).optional(),
  annotations: z.record(z.string(), ValueMatchSchema).optional(),
  /** Pods only: some / every / no container matches. */
  containers: z
    .strictObject({
      any: ContainerMatchSchema.optional(),
      all: ContainerMatchSchema.optional(),
      none: ContainerMatchSchema.optional(),
    })
    .optional(),
  /** Escape hatch: dotted paths into the object (no arrays), values compared as strings. */
  fields: z.record(z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/), ValueMatchSchema).optional(),
});
export type Selector = z.infer<typeof SelectorSchema>;

/**
 * Delay before a stage fires, counted from when it first matched the object. The base is
 * the annotation `fromAnnotation` (integer ms) if the object has it, else the named param,
 * else `ms`; jitter adds a deterministic pseudo-random [0, jitterMs] per object and version.
 */
export const DelaySchema = z
  .strictObject({
    ms: z.number().int().min(0).optional(),
    param: z.string().optional(),
    jitterMs: z.number().int().min(0).optional(),
    fromAnnotation: z.string().optional(),
  })
  .refine((d) => d.ms !== undefined || d.param !== undefined, { message: "needs `ms` or `param`" });
export type Delay = z.infer<typeof DelaySchema>;

export const ConditionStatusSchema = z.enum(["True", "False", "Unknown"]);
export const ConditionTemplateSchema = z.union([
  ConditionStatusSchema,
  z.strictObject({
    status: ConditionStatusSchema,
    reason: z.string().optional(),
    message: z.string().optional(),
  }),
]);
export type ConditionTemplate = z.infer<typeof ConditionTemplateSchema>;

/** How a container matched by `when` looks after the stage; the first matching rule wins. */
export const ContainerRuleSchema = z.strictObject({
  when: ContainerMatchSchema.optional(),
  state: z.enum(["running", "waiting", "terminated"]),
  ready: z.boolean(),
  /** Defaults to state == running. */
  started: z.boolean().optional(),
  /** "increment" restarts the container: the previous run becomes lastState.terminated. */
  restartCount: z.enum(["keep", "increment"]).default("keep"),
  /** For waiting/terminated states. Placeholders: see ContainerPlaceholders. */
  reason: z.string().optional(),
  message: z.string().optional(),
  exitCode: z.number().int().optional(),
  /** Exit code and reason recorded for the previous run when restartCount increments. */
  lastTerminated: z.strictObject({ exitCode: z.number().int(), reason: z.string() }).optional(),
});
export type ContainerRule = z.infer<typeof ContainerRuleSchema>;

export const PodStatusTemplateSchema = z.strictObject({
  phase: z.string().optional(),
  /** Allocate status.podIP(s) from the node's podCIDR (kept once set). */
  podIP: z.boolean().optional(),
  /** status.hostIP(s) from the node's InternalIP. */
  hostIP: z.boolean().optional(),
  /** status.startTime (kept once set). */
  startTime: z.boolean().optional(),
  /** Rules for spec.containers; a container no rule matches keeps its status. */
  containers: z.array(ContainerRuleSchema).optional(),
  /** Init containers all terminated with exit code 0 (sidecars running). */
  initContainers: z.literal("completed").optional(),
  /** By type, in order; lastTransitionTime moves only when the status changes. */
  conditions: z.record(z.string(), ConditionTemplateSchema).optional(),
});
export type PodStatusTemplate = z.infer<typeof PodStatusTemplateSchema>;

export const NodeStatusTemplateSchema = z.strictObject({
  phase: z.string().optional(),
  conditions: z.record(z.string(), ConditionTemplateSchema).optional(),
  /** Refresh lastHeartbeatTime of every condition. */
  heartbeat: z.boolean().optional(),
  /** Written as both capacity and allocatable, unless already set. */
  capacity: z.record(z.string(), z.string()).optional(),
  /** InternalIP (10.0.0.<10+index>) and Hostname, unless already set. */
  addresses: z.boolean().optional(),
  nodeInfo: z.record(z.string(), z.string()).optional(),
});
export type NodeStatusTemplate = z.infer<typeof NodeStatusTemplateSchema>;

export const EventTemplateSchema = z.strictObject({
  type: z.enum(["Normal", "Warning"]).default("Normal"),
  reason: z.string().min(1),
  message: z.string().min(1),
});
export type EventTemplate = z.infer<typeof EventTemplateSchema>;

/**
 * Bind a claim: optionally create a PersistentVolume `pvc-<uid>` pre-bound to it, set
 * spec.volumeName and the bind-completed annotation, then status Bound with the
 * requested capacity (or `defaultCapacity`) and access modes.
 */
export const BindVolumeSchema = z.strictObject({
  createVolume: z.boolean().default(true),
  defaultCapacity: z.string().default("1Gi"),
  storagePath: z.string().default("/var/lib/petset/volumes"),
});
export type BindVolume = z.infer<typeof BindVolumeSchema>;

const StageName = z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, "must be a DNS label");
const base = { name: StageName, selector: SelectorSchema.prefault({}), delay: DelaySchema.optional() };

export const PodStageSchema = z.strictObject({
  ...base,
  resource: z.literal("pods"),
  next: z.strictObject({
    statusPatch: PodStatusTemplateSchema.optional(),
    /** Bind an unscheduled pod to the managed Ready node with the fewest pods. */
    bind: z.boolean().optional(),
    /** Finish a deletion: delete with gracePeriodSeconds=0 (after any statusPatch). */
    delete: z.boolean().optional(),
    event: EventTemplateSchema.optional(),
  }),
});
export const NodeStageSchema = z.strictObject({
  ...base,
  resource: z.literal("nodes"),
  next: z.strictObject({
    statusPatch: NodeStatusTemplateSchema.optional(),
    event: EventTemplateSchema.optional(),
  }),
});
export const ClaimStageSchema = z.strictObject({
  ...base,
  resource: z.literal("persistentvolumeclaims"),
  next: z.strictObject({
    bindVolume: BindVolumeSchema.optional(),
    delete: z.boolean().optional(),
    event: EventTemplateSchema.optional(),
  }),
});
export const StageSchema = z.discriminatedUnion("resource", [
  PodStageSchema,
  NodeStageSchema,
  ClaimStageSchema,
]);
export type PodStage = z.infer<typeof PodStageSchema>;
export type NodeStage = z.infer<typeof NodeStageSchema>;
export type ClaimStage = z.infer<typeof ClaimStageSchema>;
export type Stage = z.infer<typeof StageSchema>;

/** Placeholders `{{x}}` allowed in messages, by where the message is. */
export const ObjectPlaceholders = ["name", "namespace", "node", "containers", "images", "unreadyContainers"];
export const ContainerPlaceholders = [...ObjectPlaceholders, "container", "image"];

export const StageConfigSchema = z
  .strictObject({
    /** Named durations (ms) that delays refer to; overridable at start-up. */
    params: z.record(z.string(), z.number().int().min(0)).default({}),
    /** In priority order: for each object the first matching stage is the one scheduled. */
    stages: z.array(StageSchema).min(1),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.stages.forEach((stage, i) => {
      const at = (...rest: (string | number)[]) => ["stages", i, ...rest];
      if (seen.has(stage.name))
        ctx.addIssue({ code: "custom", path: at("name"), message: "duplicate stage" });
      seen.add(stage.name);
      const param = stage.delay?.param;
      if (param !== undefined && !(param in config.params)) {
        ctx.addIssue({ code: "custom", path: at("delay", "param"), message: `unknown param "${param}"` });
      }
      if (
        stage.resource !== "pods" &&
        (stage.selector.containers || stage.selector.scheduled !== undefined)
      ) {
        ctx.addIssue({ code: "custom", path: at("selector"), message: "containers/scheduled are for pods" });
      }
      if (Object.values(stage.next).every((v) => v === undefined || v === false)) {
        ctx.addIssue({ code: "custom", path: at("next"), message: "does nothing" });
      }
      for (const [path, text, allowed] of messages(stage)) {
        for (const m of text.matchAll(/\{\{\s*([A-Za-z]+)\s*\}\}/g)) {
          if (!allowed.includes(m[1]!)) {
            ctx.addIssue({ code: "custom", path: at(...path), message: `unknown placeholder {{${m[1]}}}` });
          }
        }
      }
    });
  });
export type StageConfig = z.infer<typeof StageConfigSchema>;
export type StageConfigInput = z.input<typeof StageConfigSchema>;

function messages(stage: Stage): [(string | number)[], string, string[]][] {
  const out: [(string | number)[], string, string[]][] = [];
  if (stage.next.event)
    out.push([["next", "event", "message"], stage.next.event.message, ObjectPlaceholders]);
  if (stage.resource === "nodes" || stage.resource === "pods") {
    for (const [type, c] of Object.entries(stage.next.statusPatch?.conditions ?? {})) {
      if (typeof c === "object" && c.message) {
        out.push([["next", "statusPatch", "conditions", type, "message"], c.message, ObjectPlaceholders]);
      }
    }
  }
  if (stage.resource === "pods") {
    stage.next.statusPatch?.containers?.forEach((rule, j) => {
      const at = ["next", "statusPatch", "containers", j, "message"];
      if (rule.message) out.push([at, rule.message, ContainerPlaceholders]);
    });
  }
  return out;
}

/** A stage file that failed validation; the message names the source and each field. */
export class StageConfigError extends Error {
  override name = "StageConfigError";
  readonly reason = "Invalid";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Parses and validates stage YAML; `source` names the file in error messages. */
export function parseStages(text: string, source: string): StageConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (cause) {
    throw new StageConfigError(`${source}: not valid YAML`, { cause });
  }
  const result = StageConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new StageConfigError(`${source}: ${problems.join("; ")}`, { cause: result.error });
}

/**
 * Overrides named params (e.g. readyDelayMs from `petset dev --ready-delay-ms`). An unknown
 * name is an error: a misspelt override would otherwise be ignored.
 */
export function withParams(config: StageConfig, overrides: Record<string, number | undefined>): StageConfig {
  const params = { ...config.params };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(name in params)) throw new StageConfigError(`params.${name}: no stage uses this param`);
    if (!Number.isInteger(value) || value < 0)
      throw new StageConfigError(`params.${name}: must be an integer >= 0`);
    params[name] = value;
  }
  return { ...config, params };
}

/**
 * The default stages. Read from next to this module, or, when running from the compiled
 * dist/ tree (tsc does not copy YAML), from the source tree it was built from.
 */
export function loadDefaultStages(): StageConfig {
  const candidates = [
    new URL("./stages/default.yaml", import.meta.url),
    new URL("../../../../src/apiserver-shim/kubelet/stages/default.yaml", import.meta.url),
  ].map((u) => fileURLToPath(u));
  const file = candidates.find((f) => existsSync(f));
  if (file === undefined)
    throw new StageConfigError(`default stages not found (looked at ${candidates.join(", ")})`);
  return parseStages(readFileSync(file, "utf8"), file);
}

/** Loads a stage file given by path (e.g. a user's own stages). */
export function loadStagesFile(path: string): StageConfig {
  return parseStages(readFileSync(path, "utf8"), path);
}
