/**
 * apps/v1 ControllerRevisions: immutable snapshots of a controller's state. As in kube
 * (pkg/apis/apps/validation), `data` must be a JSON object and can never change;
 * `revision` is non-negative and may change (a controller renumbers a revision it reuses).
 */
import { fieldInvalid, fieldInvalidGo, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { controllerRevisionTable } from "../tables/apps-tables.js";
import { canonicalJson, deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";

function validateRevision(cr: KubeObject): FieldError[] {
  const revision = cr.revision;
  return typeof revision === "number" && revision < 0
    ? [fieldInvalid("revision", revision, "must be greater than or equal to 0")]
    : [];
}

/** `data` as kube's message prints a runtime.RawExtension: the JSON bytes, in hex. */
function goRawExtension(data: unknown): string {
  const bytes = [...Buffer.from(canonicalJson(data ?? null), "utf8")].map((b) => `0x${b.toString(16)}`);
  return `runtime.RawExtension{Raw:[]uint8{${bytes.join(", ")}}, Object:runtime.Object(nil)}`;
}

export const controllerRevisionsDefinition = defineBuiltin({
  group: "apps",
  version: "v1",
  resource: "controllerrevisions",
  kind: "ControllerRevision",
  namespaced: true,
  schema: "io.k8s.api.apps.v1.ControllerRevision",
  table: controllerRevisionTable,
  strategy: {
    validate(cr) {
      const errs = validateRevision(cr);
      if (cr.data === undefined || cr.data === null) errs.push(fieldRequired("data", "data is mandatory"));
      else if (!isPlainObject(cr.data)) errs.push(fieldRequired("data", "data must be a valid JSON object"));
      return errs;
    },
    validateUpdate(cr, old) {
      const errs = validateRevision(cr);
      if (!deepEqual(cr.data, old.data))
        errs.push(fieldInvalidGo("data", cr.data ?? null, goRawExtension(cr.data), "field is immutable"));
      return errs;
    },
  },
});
