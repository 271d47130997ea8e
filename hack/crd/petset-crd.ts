/** Builds the PetSet CustomResourceDefinition from src/api (names, defaults) and the Kubernetes schemas. */
import {
  PetSetDefaults as D,
  GROUP,
  MAX_RESERVED_ORDINALS,
  PETSET_KIND,
  PETSET_PLURAL,
  PETSET_SHORT_NAMES,
  PETSET_SINGULAR,
  PodManagementPolicies,
  PodUpdatePolicies,
  RetentionPolicies,
  UpdateStrategyTypes,
  VERSION,
} from "../../src/api/index.js";
import { claimTemplatesStatusSchema, volumeClaimUpdatePolicySchema } from "./claims-schema.js";
import { hookRecordsSchema, lifecycleSchema, rolesSchema } from "./lifecycle-schema.js";
import { withoutListItemDefaults } from "./list-defaults.js";
import { nodeFailureSchema } from "./node-failure-schema.js";
import { maxUnavailableNotZero, selectorImmutable, selectorMatchesTemplate } from "./rules.js";
import { rollingUpdateStepFields, rollingUpdateStepRules, rolloutStepStatusSchema } from "./steps-schema.js";
import type { Schema, StructuralConverter } from "./structural.js";

/**
 * An int32 field, bounded as kube's Go types bound it: CRD validation ignores `format: int32`
 * (apiextensions strips non-string formats), so 2^31 and 1e300 passed the schema and reached
 * the controller (fuzz findings: ordinals.start, minReadySeconds, partition).
 */
const INT32_MAX = 2_147_483_647;
const int = (description: string, extra: Schema = {}): Schema => ({
  type: "integer",
  format: "int32",
  description,
  maximum: INT32_MAX,
  ...extra,
});
const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const bool = (description: string, extra: Schema = {}): Schema => ({
  type: "boolean",
  description,
  ...extra,
});
const strEnum = (description: string, values: readonly string[], dflt: string): Schema =>
  str(description, { enum: [...values], default: dflt });

const LABEL_VALUE: Schema = { type: "string", maxLength: 63 };

/**
 * The pod template: the template's labels bounded like the selector's (see labelSelector),
 * and no defaults inside list items (see withoutListItemDefaults).
 */
function podTemplate(k8s: StructuralConverter): Schema {
  const template = withoutListItemDefaults(k8s.convertNamed("io.k8s.api.core.v1.PodTemplateSpec"));
  const meta = (template.properties as Record<string, Schema>).metadata as Schema;
  const metaProps = meta.properties as Record<string, Schema>;
  metaProps.labels = { ...metaProps.labels, additionalProperties: LABEL_VALUE };
  return template;
}

function labelSelector(k8s: StructuralConverter): Schema {
  const selector = k8s.convertNamed("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector");
  const props = selector.properties as Record<string, Schema>;
  // Bounded sizes keep the CEL cost estimate of the selector rules within kube's budget.
  // Label values are at most 63 characters and keys 317 (253 prefix + "/" + 63) in Kubernetes
  // anyway; saying so lets the CEL cost estimate of the selector rules fit kube's budget.
  props.matchLabels = { ...props.matchLabels, maxProperties: 64, additionalProperties: LABEL_VALUE };
  const exprs = props.matchExpressions as Schema;
  const item = exprs.items as Schema;
  const itemProps = item.properties as Record<string, Schema>;
  itemProps.operator = { ...itemProps.operator, enum: ["In", "NotIn", "Exists", "DoesNotExist"] };
  itemProps.key = { ...itemProps.key, maxLength: 317 };
  itemProps.values = { ...itemProps.values, maxItems: 64, items: LABEL_VALUE };
  props.matchExpressions = { ...exprs, maxItems: 32 };
  return {
    ...selector,
    description:
      "Label query over pods that should match the replica count. It must match the pod template's labels and cannot change after creation.",
    "x-kubernetes-validations": [selectorImmutable],
  };
}

function specSchema(k8s: StructuralConverter): Schema {
  const pvc = k8s.convertNamed("io.k8s.api.core.v1.PersistentVolumeClaim");
  delete (pvc.properties as Record<string, Schema>).status;
  return {
    type: "object",
    description:
      "The desired state of a PetSet. Field names match apps/v1 StatefulSet wherever they overlap.",
    required: ["selector", "template"],
    "x-kubernetes-validations": selectorMatchesTemplate,
    properties: {
      // No minimum/maximum here: the scale subresource (specReplicasPath) already makes the API
      // server refuse a negative or too large value, and a schema bound too would report the
      // one bad field twice (`spec.replicas` and `.spec.replicas`; issue 31).
      replicas: {
        type: "integer",
        format: "int32",
        description: "Desired number of pets.",
        default: D.replicas,
      },
      selector: labelSelector(k8s),
      serviceName: str(
        "Name of the headless Service that governs the pets; each pod gets hostname <pod> and subdomain <serviceName>.",
      ),
      template: {
        ...podTemplate(k8s),
        description:
          "The pod template. It is versioned: every change creates a new PetSetVersion and the controller rolls pets to it.",
      },
      volumeClaimTemplates: {
        type: "array",
        default: [],
        description:
          "One PersistentVolumeClaim per pet per template, named <claim>-<petset>-<ordinal>, created before the pod and never recreated while it exists. Versioned with the template.",
        items: pvc,
      },
      podManagementPolicy: strEnum(
        "OrderedReady creates pets in ordinal order, each after the previous one is Ready, and removes them in reverse; Parallel creates and removes all at once.",
        PodManagementPolicies,
        D.podManagementPolicy,
      ),
      ordinals: {
        type: "object",
        description: "Ordinal numbering of the pets.",
        default: {},
        properties: { start: int("The first ordinal.", { default: D.ordinalsStart, minimum: 0 }) },
      },
      reserveOrdinals: {
        type: "array",
        maxItems: MAX_RESERVED_ORDINALS,
        description:
          'Ordinals no pet gets: ints and inclusive ranges "a-b", e.g. [1, "3-5"]. replicas counts the pets that exist, so replicas 3 with reserveOrdinals [1] gives <name>-0, <name>-2, <name>-3. Reserving a running pet\'s ordinal moves it as a scale would. Not versioned.',
        // No CEL here: kube estimates an int-or-string's length as unbounded, so even a split per
        // item exceeds the CRD's cost budget. pattern and minimum refuse malformed entries; a
        // reversed range ("5-3") is refused by the controller (InvalidSpec, naming the field).
        items: {
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
          minimum: 0,
          pattern: "^[0-9]{1,10}(-[0-9]{1,10})?$",
          maxLength: 21,
        },
      },
      scaleStrategy: {
        type: "object",
        description: "How fast pets are created and removed by scaling.",
        properties: {
          maxUnavailable: {
            "x-kubernetes-int-or-string": true,
            anyOf: [{ type: "integer" }, { type: "string" }],
            pattern: "^[0-9]+%$",
            minimum: 1,
            description:
              "Parallel only: at most this many pets unavailable from scaling at once (created and not yet available, or being deleted); an integer >= 1 or a percentage of replicas (rounded down, at least 1). Unset: no limit.",
          },
        },
      },
      updateStrategy: {
        type: "object",
        description: "How pets are moved to a new version.",
        default: {},
        properties: {
          type: strEnum(
            "RollingUpdate replaces pets from the highest ordinal down; OnDelete only creates missing pets at the new version; External moves a pod when an outside actor annotates it petset.dev/update-requested=<target version>.",
            UpdateStrategyTypes,
            D.updateStrategyType,
          ),
          rollingUpdate: {
            type: "object",
            description: "Parameters of a RollingUpdate.",
            "x-kubernetes-validations": [maxUnavailableNotZero, ...rollingUpdateStepRules],
            properties: {
              partition: int("Only ordinals >= partition move to the new version.", {
                default: D.partition,
                minimum: 0,
              }),
              maxUnavailable: {
                "x-kubernetes-int-or-string": true,
                anyOf: [{ type: "integer" }, { type: "string" }],
                pattern: "^[0-9]+%$",
                default: D.maxUnavailable,
                description:
                  "Maximum number of pets unavailable during the update: an integer or a percentage of replicas (rounded down, at least 1). Never 0.",
              },
              podUpdatePolicy: strEnum(
                "Recreate deletes and recreates a pod for every change; InPlaceIfPossible updates the running pod when only container images and/or cpu and memory resources changed (resources through the pod resize subresource), else recreates it; InPlaceOnly never recreates a pod for a version change: a version that cannot be applied in place is refused (Progressing message and a Warning Event).",
                PodUpdatePolicies,
                D.podUpdatePolicy,
              ),
              inPlaceResizeTimeoutSeconds: int(
                "A resize the kubelet defers (PodResizePending, reason Deferred) for longer than this many seconds falls back to recreating the pet (InPlaceIfPossible); Infeasible falls back at once.",
                { default: D.inPlaceResizeTimeoutSeconds, minimum: 0 },
              ),
              ...rollingUpdateStepFields(),
            },
          },
        },
      },
      minReadySeconds: int("A pet counts as available this many seconds after it became Ready.", {
        default: D.minReadySeconds,
        minimum: 0,
      }),
      revisionHistoryLimit: int("Number of PetSetVersions kept beyond those in use.", {
        default: D.revisionHistoryLimit,
        minimum: 0,
      }),
      paused: bool(
        "Stop moving pods between versions. Versions are still recorded and scaling still works.",
        {
          default: D.paused,
        },
      ),
      progressDeadlineSeconds: int(
        "Seconds without progress before the rollout is reported as Progressing=False with reason ProgressDeadlineExceeded.",
        { default: D.progressDeadlineSeconds, minimum: 1 },
      ),
      autoRollback: bool(
        "On ProgressDeadlineExceeded, roll back to the last version that fully rolled out (a new version with rollbackOf).",
        { default: D.autoRollback },
      ),
      persistentVolumeClaimRetentionPolicy: {
        type: "object",
        description:
          "What happens to the claims of volumeClaimTemplates when the PetSet is deleted or scaled down.",
        default: {},
        properties: {
          whenDeleted: strEnum(
            "Retain or Delete claims when the PetSet is deleted.",
            RetentionPolicies,
            D.whenDeleted,
          ),
          whenScaled: strEnum(
            "Retain or Delete claims of pets removed by scale-down.",
            RetentionPolicies,
            D.whenScaled,
          ),
        },
      },
      volumeClaimUpdatePolicy: volumeClaimUpdatePolicySchema(),
      lifecycle: lifecycleSchema(),
      roles: rolesSchema(),
      nodeFailure: nodeFailureSchema(),
    },
  };
}

function statusSchema(k8s: StructuralConverter): Schema {
  const condition = k8s.convertNamed("io.k8s.apimachinery.pkg.apis.meta.v1.Condition");
  const count = (d: string) => int(d, { minimum: 0 });
  return {
    type: "object",
    description: "The observed state of a PetSet, written by the controller.",
    properties: {
      observedGeneration: {
        type: "integer",
        format: "int64",
        description: "The generation the controller last acted on.",
      },
      replicas: count("Pods that exist for this PetSet."),
      readyReplicas: count("Pods with a Ready condition."),
      availableReplicas: count("Pods Ready for at least minReadySeconds."),
      currentReplicas: count("Pods at the current version."),
      updatedReplicas: count("Pods at the update version."),
      currentVersion: int("The version every pet ran before the rollout in flight (the last complete one)."),
      updateVersion: int("The version the controller drives the pets to: the newest."),
      lastCompleteVersion: int("The newest version that every pet reached; the target of autoRollback."),
      ready: str("ready/desired, for display."),
      selector: str("The label selector as a string, for the scale subresource and HPA."),
      conditions: {
        type: "array",
        description: "Available and Progressing.",
        items: condition,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
      },
      hooks: hookRecordsSchema(
        "Hooks running or failed now; finished runs are recorded on the PetSetVersions.",
      ),
      rolloutStep: rolloutStepStatusSchema(),
      volumeClaimTemplates: claimTemplatesStatusSchema(),
    },
  };
}

export function petSetCrd(k8s: StructuralConverter): Schema {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PETSET_PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: PETSET_KIND,
        listKind: `${PETSET_KIND}List`,
        plural: PETSET_PLURAL,
        singular: PETSET_SINGULAR,
        shortNames: [...PETSET_SHORT_NAMES],
        categories: ["all"],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
              labelSelectorPath: ".status.selector",
            },
          },
          additionalPrinterColumns: [
            { name: "Ready", type: "string", jsonPath: ".status.ready", description: "Ready pets / desired" },
            {
              name: "Current",
              type: "integer",
              jsonPath: ".status.currentVersion",
              description: "Current version",
            },
            {
              name: "Update",
              type: "integer",
              jsonPath: ".status.updateVersion",
              description: "Update version",
            },
            {
              name: "Up-to-date",
              type: "integer",
              jsonPath: ".status.updatedReplicas",
              description: "Pets at the update version",
            },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description:
                "PetSet runs a stateful set of pods with stable identity and storage. Every change to its pod template is recorded as a numbered, immutable PetSetVersion.",
              required: ["spec"],
              properties: {
                apiVersion: {
                  type: "string",
                  description: "APIVersion of this object: petset.dev/v1alpha1.",
                },
                kind: { type: "string", description: "Kind of this object: PetSet." },
                // Pod names <petset>-<ordinal> are hostnames and the name is a label value (63
                // characters each); 52 leaves room for the ordinal, like StatefulSet's limit.
                metadata: { type: "object", properties: { name: { type: "string", maxLength: 52 } } },
                spec: specSchema(k8s),
                status: statusSchema(k8s),
              },
            },
          },
        },
      ],
    },
  };
}
