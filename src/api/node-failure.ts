/**
 * `spec.nodeFailure` (docs/failover.md, SPEC rule 13): what the controller does about a pet whose
 * node is lost (its Ready condition Unknown or False, or the node gone).
 *  - `Manual` (default): report only (condition PetsOnLostNodes, a Warning Event, the metric
 *    petset_pets_on_lost_nodes, `kubectl petset status` with the command to fence by hand).
 *  - `Fence`: once the node has been lost for `afterSeconds`, run the `fence` hook (job, webhook
 *    or external: exec cannot reach a dead node; failurePolicy Pause only); only after it
 *    succeeded is the old pod force-deleted, its VolumeAttachments on that node removed, and the
 *    pet created again through the normal path.
 * The CRD's CEL rules refuse what zod refuses here, so `kubectl apply` names the field.
 */
import { z } from "zod";
import { HookSpecSchema } from "./lifecycle.js";

export const NodeFailurePolicies = ["Manual", "Fence"] as const;
export type NodeFailurePolicy = (typeof NodeFailurePolicies)[number];

export const NodeFailureDefaults = {
  policy: "Manual",
  afterSeconds: 300,
  taintOutOfService: false,
} as const;

/** The taint `taintOutOfService` applies (Kubernetes' non-graceful node shutdown). */
export const OutOfServiceTaint = {
  key: "node.kubernetes.io/out-of-service",
  value: "nodeshutdown",
  effect: "NoExecute",
} as const;

export const FenceHookSchema = HookSpecSchema.refine((h) => h.exec === undefined, {
  message: "exec cannot reach a lost node: use job, webhook or external",
  path: ["exec"],
}).refine((h) => h.failurePolicy === "Pause", {
  message: "a fence can only Pause on failure (Ignore would give a pet a second pod)",
  path: ["failurePolicy"],
});

export const NodeFailureSchema = z
  .object({
    policy: z.enum(NodeFailurePolicies).default(NodeFailureDefaults.policy),
    /** How long a pet's node must have been lost before its fence runs. */
    afterSeconds: z.number().int().min(0).max(86_400).default(NodeFailureDefaults.afterSeconds),
    fence: FenceHookSchema.optional(),
    /** After the fence: taint the node node.kubernetes.io/out-of-service (affects every pod on it). */
    taintOutOfService: z.boolean().default(NodeFailureDefaults.taintOutOfService),
  })
  .refine((n) => n.policy !== "Fence" || n.fence !== undefined, {
    message: "policy Fence needs a fence hook",
    path: ["fence"],
  });
export type NodeFailure = z.infer<typeof NodeFailureSchema>;

/** The condition that names each pet on a lost node (True while there is one). */
export const PetsOnLostNodesCondition = "PetsOnLostNodes";
