/** CRD schema of claims following versions (docs/volumes.md): the spec policy and the status per claim template. */
import { PetSetDefaults as D, VolumeClaimUpdatePolicies } from "../../src/api/index.js";
import type { Schema } from "./structural.js";

export function volumeClaimUpdatePolicySchema(): Schema {
  return {
    type: "string",
    description:
      "OnClaimDelete: a changed claim template applies only to claims created later. InPlace: existing claims follow each pet's move to a version (storage growth, labels, annotations, volumeAttributesClassName; new templates create claims); a shrink or a storageClassName/accessModes change is refused with Progressing=False reason ClaimUpdateRefused.",
    enum: [...VolumeClaimUpdatePolicies],
    default: D.volumeClaimUpdatePolicy,
  };
}

export function claimTemplatesStatusSchema(): Schema {
  const count = (description: string): Schema => ({
    type: "integer",
    format: "int32",
    minimum: 0,
    maximum: 2_147_483_647,
    description,
  });
  return {
    type: "array",
    description: "Per claim template of the update version: how the pets' claims compare to it.",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    items: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", description: "The claim template's name." },
        compatibleReplicas: count("Pets whose claim satisfies the template."),
        updatingReplicas: count("Pets whose claim is being resized to the template."),
        overSizedReplicas: count("Pets whose claim is larger than the template (rollbacks never shrink)."),
        totalCapacity: { type: "string", description: "Sum of the claims' status.capacity.storage." },
      },
    },
  };
}
