/** Builds the PetSetVersion CustomResourceDefinition: an immutable, numbered record of a PetSet's pod-shaping content. */
import {
  GROUP,
  VERSION,
  VERSION_KIND,
  VERSION_PLURAL,
  VERSION_SHORT_NAMES,
  VERSION_SINGULAR,
} from "../../src/api/index.js";
import { hookRecordsSchema } from "./lifecycle-schema.js";
import { withoutListItemDefaults } from "./list-defaults.js";
import { versionSpecImmutable } from "./rules.js";
import { versionStepsSchema } from "./steps-schema.js";
import type { Schema, StructuralConverter } from "./structural.js";

const time = (description: string): Schema => ({ type: "string", format: "date-time", description });

/** Rollout facts (src/api/petset-version.ts); the PetSet's status is derived from them. */
function statusSchema(): Schema {
  return {
    type: "object",
    description:
      "Rollout facts the controller records on this version (never written by users). The PetSet's currentVersion, lastCompleteVersion and Progressing condition are derived from them, so a wiped PetSet status comes back identical.",
    properties: {
      observedAt: time("The controller first saw this version as the PetSet's newest."),
      rolloutStartedAt: time("Pods were first moved towards this version (it became the rollout target)."),
      resumedAt: time("Last time a paused rollout of this version was resumed; the deadline clock restarts."),
      deadlineExceededAt: time("Last time its rollout made no progress for progressDeadlineSeconds."),
      completedAt: time("First time every pet at or above the partition ran this version, available."),
      becameCurrentAt: time(
        "It became the PetSet's currentVersion: every pet existed and ran it. The version with the latest time is current.",
      ),
      fullyRolledOutAt: time(
        "Every pet ran this version and was available. The version with the latest time is lastCompleteVersion, the autoRollback target.",
      ),
      supersededAt: time("A newer version became the rollout target after this one had started."),
      supersededBy: {
        type: "integer",
        format: "int64",
        minimum: 1,
        description: "The version that superseded it.",
      },
      rolledBackAt: time("autoRollback gave this version up and rolled back to lastCompleteVersion."),
      steps: versionStepsSchema(),
      hooks: hookRecordsSchema(
        "Hook runs that moved pets to this version (preScaleDown: of pods at it), latest state of each: the audit trail of kubectl petset history.",
      ),
      formatVersion: {
        type: "integer",
        format: "int64",
        minimum: 0,
        description:
          "The format of this status as the controller wrote it; absent means 0. A controller that does not know the format leaves the PetSet alone (docs/operations.md).",
      },
    },
  };
}

export function petSetVersionCrd(k8s: StructuralConverter): Schema {
  const pvc = k8s.convertNamed("io.k8s.api.core.v1.PersistentVolumeClaim");
  delete (pvc.properties as Record<string, Schema>).status;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${VERSION_PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: VERSION_KIND,
        listKind: `${VERSION_KIND}List`,
        plural: VERSION_PLURAL,
        singular: VERSION_SINGULAR,
        shortNames: [...VERSION_SHORT_NAMES],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          // Rollout facts, written only by the controller; spec stays immutable (CEL rule).
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "PetSet", type: "string", jsonPath: ".spec.petSet" },
            { name: "Version", type: "integer", jsonPath: ".spec.version" },
            { name: "Generation", type: "integer", jsonPath: ".spec.generation" },
            { name: "Rollback-of", type: "integer", jsonPath: ".spec.rollbackOf" },
            { name: "Change-cause", type: "string", jsonPath: ".spec.changeCause" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
            { name: "Hash", type: "string", jsonPath: ".spec.hash", priority: 1 },
            { name: "Changed-by", type: "string", jsonPath: ".spec.changedBy", priority: 1 },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description:
                "PetSetVersion is version N of a PetSet's pod-shaping content (template and volumeClaimTemplates), named <petset>-v<N>. Created by the controller; its spec never changes.",
              required: ["spec"],
              properties: {
                apiVersion: {
                  type: "string",
                  description: "APIVersion of this object: petset.dev/v1alpha1.",
                },
                kind: { type: "string", description: "Kind of this object: PetSetVersion." },
                metadata: { type: "object" },
                spec: {
                  type: "object",
                  description: "The recorded version. Immutable: the API server rejects any change.",
                  required: ["petSet", "version", "generation", "hash", "template"],
                  "x-kubernetes-validations": [versionSpecImmutable],
                  properties: {
                    petSet: {
                      type: "string",
                      description: "Name of the owning PetSet (also its controller ownerReference).",
                    },
                    version: {
                      type: "integer",
                      format: "int64",
                      minimum: 1,
                      description: "N: starts at 1, only grows, never reused.",
                    },
                    generation: {
                      type: "integer",
                      format: "int64",
                      minimum: 0,
                      description: "The PetSet metadata.generation at which this version was observed.",
                    },
                    hash: {
                      type: "string",
                      description: "Hash of the canonical versioned content.",
                      maxLength: 63,
                    },
                    template: {
                      ...withoutListItemDefaults(k8s.convertNamed("io.k8s.api.core.v1.PodTemplateSpec")),
                      description: "The pod template, exactly as the user wrote it.",
                    },
                    volumeClaimTemplates: {
                      type: "array",
                      description: "The volume claim templates, exactly as the user wrote them.",
                      items: pvc,
                    },
                    rollbackOf: {
                      type: "integer",
                      format: "int64",
                      minimum: 1,
                      description:
                        "Set when this content equals an older version's: the number of that version.",
                    },
                    changeCause: {
                      type: "string",
                      description:
                        "Human summary: the kubernetes.io/change-cause annotation if present, else derived from the delta.",
                    },
                    changedBy: {
                      type: "string",
                      description: "The field manager that made the change, where the API tells it.",
                    },
                    delta: {
                      type: "array",
                      description: "JSON Patch (RFC 6902) from the previous version's content to this one.",
                      items: {
                        type: "object",
                        required: ["op", "path"],
                        properties: {
                          op: { type: "string", enum: ["add", "remove", "replace", "move", "copy", "test"] },
                          path: { type: "string" },
                          from: { type: "string" },
                          value: { "x-kubernetes-preserve-unknown-fields": true },
                        },
                      },
                    },
                  },
                },
                status: statusSchema(),
              },
            },
          },
        },
      ],
    },
  };
}
