/** OpenAPI schema of `spec.nodeFailure` (src/api/node-failure.ts, docs/failover.md). */
import { NodeFailureDefaults, NodeFailurePolicies } from "../../src/api/index.js";
import { hookSchema } from "./lifecycle-schema.js";
import type { Schema } from "./structural.js";

export function nodeFailureSchema(): Schema {
  return {
    type: "object",
    description:
      "What happens to a pet whose node is lost (Ready Unknown or False, or the node gone): Manual reports it (condition PetsOnLostNodes, an Event, the command to fence by hand); Fence runs the fence hook after afterSeconds and only after it succeeded force-deletes the pod and moves the pet (docs/failover.md).",
    "x-kubernetes-validations": [
      {
        rule: "!has(self.policy) || self.policy != 'Fence' || has(self.fence)",
        message: "policy Fence needs a fence hook",
        fieldPath: ".fence",
        reason: "FieldValueRequired",
      },
    ],
    properties: {
      policy: {
        type: "string",
        description: "Manual (report and wait for a human) or Fence (run the fence hook, then move the pet).",
        enum: [...NodeFailurePolicies],
        default: NodeFailureDefaults.policy,
      },
      afterSeconds: {
        type: "integer",
        format: "int32",
        minimum: 0,
        maximum: 86_400,
        default: NodeFailureDefaults.afterSeconds,
        description:
          "How long the pet's node must have been lost (since its Ready condition changed) before the fence runs.",
      },
      fence: hookSchema("fence"),
      taintOutOfService: {
        type: "boolean",
        default: NodeFailureDefaults.taintOutOfService,
        description:
          "After the fence succeeded, taint the node node.kubernetes.io/out-of-service=nodeshutdown:NoExecute. Affects every pod on the node, not only this PetSet's.",
      },
    },
  };
}
