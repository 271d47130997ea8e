/**
 * The apimachinery component schemas a CRD's published OpenAPI v3 document references
 * (ObjectMeta, ListMeta, Status, DeleteOptions, Patch, autoscaling/v1 Scale, ...), as
 * kube-apiserver publishes them, reduced to what `kubectl explain` and client-side validation
 * read.
 */
type Schema = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const REF = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const refAllOf = (name: string, description: string, extra: Schema = {}): Schema => ({
  allOf: [REF(name)],
  description,
  ...extra,
});
const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const int = (format: "int32" | "int64", description: string): Schema => ({
  type: "integer",
  format,
  description,
});
const strMap = (description: string): Schema => ({
  type: "object",
  additionalProperties: { type: "string", default: "" },
  description,
});
const strList = (description: string, extra: Schema = {}): Schema => ({
  type: "array",
  items: { type: "string", default: "" },
  description,
  ...extra,
});

export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const SCALE = "io.k8s.api.autoscaling.v1.Scale";

export function metaComponentSchemas(): Record<string, Schema> {
  return {
    [OBJECT_META]: {
      description:
        "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
      type: "object",
      properties: {
        annotations: strMap(
          "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.",
        ),
        creationTimestamp: refAllOf(
          `${META}.Time`,
          "CreationTimestamp is a timestamp representing the server time when this object was created.",
          { default: {} },
        ),
        deletionGracePeriodSeconds: int(
          "int64",
          "Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.",
        ),
        deletionTimestamp: refAllOf(
          `${META}.Time`,
          "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.",
        ),
        finalizers: strList("Must be empty before the object is deleted from the registry.", {
          "x-kubernetes-list-type": "set",
        }),
        generateName: str(
          "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.",
        ),
        generation: int(
          "int64",
          "A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.",
        ),
        labels: strMap(
          "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
        ),
        managedFields: {
          type: "array",
          items: { default: {}, allOf: [REF(`${META}.ManagedFieldsEntry`)] },
          "x-kubernetes-list-type": "atomic",
          description:
            "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.",
        },
        name: str("Name must be unique within a namespace."),
        namespace: str("Namespace defines the space within which each name must be unique."),
        ownerReferences: {
          type: "array",
          items: { default: {}, allOf: [REF(`${META}.OwnerReference`)] },
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["uid"],
          "x-kubernetes-patch-merge-key": "uid",
          "x-kubernetes-patch-strategy": "merge",
          description: "List of objects depended by this object.",
        },
        resourceVersion: str("An opaque value that represents the internal version of this object."),
        selfLink: str(
          "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
        ),
        uid: str("UID is the unique in time and space value for this object."),
      },
    },
    [LIST_META]: {
      description:
        "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
      type: "object",
      properties: {
        continue: str("continue may be set if the user set a limit on the number of items returned."),
        remainingItemCount: int(
          "int64",
          "remainingItemCount is the number of subsequent items in the list which are not included in this list response.",
        ),
        resourceVersion: str("String that identifies the server's internal version of this object."),
        selfLink: str(
          "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
        ),
      },
    },
    [`${META}.Time`]: {
      description: "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.",
      type: "string",
      format: "date-time",
    },
    [`${META}.FieldsV1`]: {
      description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.",
      type: "object",
    },
    [`${META}.ManagedFieldsEntry`]: {
      description:
        "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
      type: "object",
      properties: {
        apiVersion: str("APIVersion defines the version of this resource that this field set applies to."),
        fieldsType: str("FieldsType is the discriminator for the different fields format and version."),
        fieldsV1: refAllOf(
          `${META}.FieldsV1`,
          'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.',
        ),
        manager: str("Manager is an identifier of the workflow managing these fields."),
        operation: str(
          "Operation is the type of operation which lead to this ManagedFieldsEntry being created.",
        ),
        subresource: str("Subresource is the name of the subresource used to update that object."),
        time: refAllOf(`${META}.Time`, "Time is the timestamp of when the ManagedFields entry was added."),
      },
    },
    [`${META}.OwnerReference`]: {
      description: "OwnerReference contains enough information to let you identify an owning object.",
      type: "object",
      required: ["apiVersion", "kind", "name", "uid"],
      properties: {
        apiVersion: str("API version of the referent.", { default: "" }),
        blockOwnerDeletion: {
          type: "boolean",
          description:
            'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
        },
        controller: {
          type: "boolean",
          description: "If true, this reference points to the managing controller.",
        },
        kind: str("Kind of the referent.", { default: "" }),
        name: str("Name of the referent.", { default: "" }),
        uid: str("UID of the referent.", { default: "" }),
      },
      "x-kubernetes-map-type": "atomic",
    },
    [`${META}.StatusCause`]: {
      description: "StatusCause provides more information about an api.Status failure.",
      type: "object",
      properties: {
        field: str("The field of the resource that has caused this error."),
        message: str("A human-readable description of the cause of the error."),
        reason: str("A machine-readable description of the cause of the error."),
      },
    },
    [`${META}.StatusDetails`]: {
      description:
        "StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.",
      type: "object",
      properties: {
        causes: {
          type: "array",
          items: { default: {}, allOf: [REF(`${META}.StatusCause`)] },
          "x-kubernetes-list-type": "atomic",
          description: "The Causes array includes more details associated with the StatusReason failure.",
        },
        group: str("The group attribute of the resource associated with the status StatusReason."),
        kind: str("The kind attribute of the resource associated with the status StatusReason."),
        name: str("The name attribute of the resource associated with the status StatusReason."),
        retryAfterSeconds: int(
          "int32",
          "If specified, the time in seconds before the operation should be retried.",
        ),
        uid: str("UID of the resource."),
      },
    },
    [STATUS]: {
      description: "Status is a return value for calls that don't return other objects.",
      type: "object",
      properties: {
        apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
        code: int("int32", "Suggested HTTP return code for this status, 0 if not set."),
        details: refAllOf(`${META}.StatusDetails`, "Extended data associated with the reason."),
        kind: str("Kind is a string value representing the REST resource this object represents."),
        message: str("A human-readable description of the status of this operation."),
        metadata: refAllOf(LIST_META, "Standard list metadata.", { default: {} }),
        reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
        status: str('Status of the operation. One of: "Success" or "Failure".'),
      },
      "x-kubernetes-group-version-kind": [{ group: "", kind: "Status", version: "v1" }],
    },
    [`${META}.Preconditions`]: {
      description:
        "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.",
      type: "object",
      properties: {
        resourceVersion: str("Specifies the target ResourceVersion"),
        uid: str("Specifies the target UID."),
      },
    },
    [DELETE_OPTIONS]: {
      description: "DeleteOptions may be provided when deleting an API object.",
      type: "object",
      properties: {
        apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
        dryRun: strList("When present, indicates that modifications should not be persisted.", {
          "x-kubernetes-list-type": "atomic",
        }),
        gracePeriodSeconds: int("int64", "The duration in seconds before the object should be deleted."),
        kind: str("Kind is a string value representing the REST resource this object represents."),
        orphanDependents: {
          type: "boolean",
          description: "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7.",
        },
        preconditions: refAllOf(
          `${META}.Preconditions`,
          "Must be fulfilled before a deletion is carried out.",
        ),
        propagationPolicy: str(
          "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.",
        ),
      },
    },
    [PATCH]: {
      description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
      type: "object",
    },
    [SCALE]: {
      description: "Scale represents a scaling request for a resource.",
      type: "object",
      properties: {
        apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
        kind: str("Kind is a string value representing the REST resource this object represents."),
        metadata: refAllOf(OBJECT_META, "Standard object metadata.", { default: {} }),
        spec: refAllOf("io.k8s.api.autoscaling.v1.ScaleSpec", "spec defines the behavior of the scale.", {
          default: {},
        }),
        status: refAllOf(
          "io.k8s.api.autoscaling.v1.ScaleStatus",
          "status is the current status of the scale.",
          { default: {} },
        ),
      },
      "x-kubernetes-group-version-kind": [{ group: "autoscaling", kind: "Scale", version: "v1" }],
    },
    "io.k8s.api.autoscaling.v1.ScaleSpec": {
      description: "ScaleSpec describes the attributes of a scale subresource.",
      type: "object",
      properties: {
        replicas: int("int32", "replicas is the desired number of instances for the scaled object."),
      },
    },
    "io.k8s.api.autoscaling.v1.ScaleStatus": {
      description: "ScaleStatus represents the current status of a scale subresource.",
      type: "object",
      required: ["replicas"],
      properties: {
        replicas: {
          ...int("int32", "replicas is the actual number of observed instances of the scaled object."),
          default: 0,
        },
        selector: str("selector is the label query over pods that should match the replicas count."),
      },
    },
  };
}
