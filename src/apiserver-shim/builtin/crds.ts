/**
 * CustomResourceDefinitions. The status (NamesAccepted, Established, acceptedNames,
 * storedVersions) is computed by the server on every write, so a CRD is established as
 * soon as it exists; the cleanup finalizer lets the CRD controller delete its CRs first.
 */
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../errors.js";
import { type FieldError, validateCrdSchema } from "../schema/index.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TableConvertor } from "../tables/table.js";
import { rfc3339 } from "../time.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";

export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

type Obj = Record<string, unknown>;

const crdTable: TableConvertor = {
  columns: [NAME_COLUMN, column("Created At", "date", AGE_COLUMN.description)],
  cells: (o) => [o.metadata.name, o.metadata.creationTimestamp],
};

function names(crd: KubeObject): Obj {
  const spec = (crd.spec ?? {}) as Obj;
  const n = (isPlainObject(spec.names) ? spec.names : {}) as Obj;
  return n;
}

function defaultSpec(crd: KubeObject): void {
  const spec = (isPlainObject(crd.spec) ? crd.spec : {}) as Obj;
  crd.spec = spec;
  const n = names(crd);
  if (typeof n.kind === "string") {
    n.singular ??= n.kind.toLowerCase();
    n.listKind ??= `${n.kind}List`;
  }
  spec.conversion ??= { strategy: "None" };
}

function computeStatus(crd: KubeObject, old: KubeObject | undefined, now: Date): void {
  const spec = (crd.spec ?? {}) as Obj;
  const versions = Array.isArray(spec.versions) ? (spec.versions as Obj[]) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const prevStatus = (old?.status ?? crd.status ?? {}) as Obj;
  const stored = new Set<string>(
    Array.isArray(prevStatus.storedVersions) ? prevStatus.storedVersions.map(String) : [],
  );
  if (typeof storage === "string") stored.add(storage);
  const prevConds = Array.isArray(prevStatus.conditions) ? (prevStatus.conditions as Obj[]) : [];
  const cond = (type: string, reason: string, message: string): Obj => {
    const before = prevConds.find((c) => c.type === type && c.status === "True");
    return {
      type,
      status: "True",
      lastTransitionTime: before?.lastTransitionTime ?? rfc3339(now),
      reason,
      message,
    };
  };
  const conditions = [
    cond("NamesAccepted", "NoConflicts", "no conflicts found"),
    cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
  ];
  if (crd.metadata.deletionTimestamp)
    conditions.push({
      type: "Terminating",
      status: "True",
      lastTransitionTime: rfc3339(now),
      reason: "InstanceDeletionInProgress",
      message: "CustomResource deletion is in progress",
    });
  const accepted = deepClone(names(crd));
  crd.status = { conditions, acceptedNames: accepted, storedVersions: [...stored] };
}

const PLURAL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function validateCrd(crd: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (crd.spec ?? {}) as Obj;
  const n = names(crd);
  const group = spec.group;
  if (typeof group !== "string" || !group) errs.push(fieldRequired("spec.group"));
  else if (!group.includes("."))
    errs.push(fieldInvalid("spec.group", group, "should be a domain with at least one dot"));
  if (typeof n.plural !== "string" || !n.plural) errs.push(fieldRequired("spec.names.plural"));
  else if (!PLURAL.test(n.plural))
    errs.push(
      fieldInvalid(
        "spec.names.plural",
        n.plural,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
      ),
    );
  if (typeof n.kind !== "string" || !n.kind) errs.push(fieldRequired("spec.names.kind"));
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster")
    errs.push(fieldNotSupported("spec.scope", spec.scope ?? "", ["Cluster", "Namespaced"]));
  if (
    typeof n.plural === "string" &&
    typeof group === "string" &&
    crd.metadata.name !== `${n.plural}.${group}`
  )
    errs.push(fieldInvalid("metadata.name", crd.metadata.name, `must be spec.names.plural+"."+spec.group`));
  const versions = Array.isArray(spec.versions) ? (spec.versions as Obj[]) : [];
  if (versions.length === 0)
    errs.push(fieldInvalid("spec.versions", [], "must have exactly one version marked as storage version"));
  else if (versions.filter((v) => v.storage === true).length !== 1)
    errs.push(
      fieldInvalid(
        "spec.versions",
        versions.map((v) => v.name),
        "must have exactly one version marked as storage version",
      ),
    );
  versions.forEach((v, i) => {
    if (typeof v.name !== "string" || !v.name) errs.push(fieldRequired(`spec.versions[${i}].name`));
    const schema = isPlainObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isPlainObject(schema))
      errs.push(fieldRequired(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"));
  });
  errs.push(...validateCrdSchema(crd));
  return errs;
}

export function crdsDefinition(clock: () => Date) {
  return defineBuiltin({
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
    schema: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    status: true,
    table: crdTable,
    strategy: {
      tracksGeneration: true,
      prepareForCreate(crd) {
        defaultSpec(crd);
        crd.metadata.finalizers = [...new Set([...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
        computeStatus(crd, undefined, clock());
      },
      validate: validateCrd,
      prepareForUpdate(crd, old) {
        defaultSpec(crd);
        computeStatus(crd, old, clock());
      },
      validateUpdate(crd, old) {
        const errs = validateCrd(crd);
        const oldSpec = (old.spec ?? {}) as Obj;
        const spec = (crd.spec ?? {}) as Obj;
        if (oldSpec.group !== spec.group)
          errs.push(fieldInvalid("spec.group", spec.group, "field is immutable"));
        if (names(old).plural !== names(crd).plural)
          errs.push(fieldInvalid("spec.names.plural", names(crd).plural, "field is immutable"));
        if (oldSpec.scope !== spec.scope)
          errs.push(fieldInvalid("spec.scope", spec.scope, "field is immutable"));
        return errs;
      },
      prepareForStatusUpdate(crd, old) {
        const status = crd.status;
        Object.assign(crd, {
          ...deepClone(old),
          status,
          metadata: { ...old.metadata, managedFields: crd.metadata.managedFields },
        });
      },
      prepareForDelete(crd) {
        computeStatus(crd, crd, clock());
      },
    },
  });
}
