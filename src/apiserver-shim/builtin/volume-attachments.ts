/**
 * `storage.k8s.io/v1` VolumeAttachments, as kube-apiserver serves them (cluster-scoped,
 * status subresource): ValidateVolumeAttachment (attacher, nodeName and exactly one source
 * required) and ValidateVolumeAttachmentUpdate (spec immutable). The embedded attach/detach
 * controller (controllers/attach-detach-controller.ts) creates and deletes them; the
 * `kubectl get volumeattachments` table has kube's columns.
 */
import { fieldForbidden, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, type TableConvertor } from "../tables/table.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";

type Obj = Record<string, unknown>;

export const VOLUME_ATTACHMENTS_GR = "storage.k8s.io/volumeattachments";

const specOf = (o: KubeObject): Obj => (isPlainObject(o.spec) ? o.spec : {});

function validateVolumeAttachment(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push(fieldRequired("spec.attacher"));
  if (!spec.nodeName) errs.push(fieldRequired("spec.nodeName"));
  const source = isPlainObject(spec.source) ? spec.source : {};
  const sources = ["persistentVolumeName", "inlineVolumeSpec"].filter((k) => source[k] !== undefined);
  if (sources.length !== 1)
    errs.push(
      fieldForbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"),
    );
  return errs;
}

function validateVolumeAttachmentUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  return deepEqual(o.spec, old.spec) ? [] : [fieldForbidden("spec", "field is immutable")];
}

const volumeAttachmentTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column(
      "Attacher",
      "string",
      "attacher indicates the name of the volume driver that MUST handle this request.",
    ),
    column("PV", "string", "persistentVolumeName represents the name of the persistent volume to attach."),
    column("Node", "string", "nodeName represents the node that the volume should be attached to."),
    column("Attached", "boolean", "attached indicates the volume is successfully attached."),
    AGE_COLUMN,
  ],
  cells: (o, now) => {
    const spec = specOf(o);
    const source = isPlainObject(spec.source) ? spec.source : {};
    const status = isPlainObject(o.status) ? o.status : {};
    return [
      o.metadata.name,
      spec.attacher ?? "",
      source.persistentVolumeName ?? "",
      spec.nodeName ?? "",
      status.attached === true,
      objectAge(o, now),
    ];
  },
};

export const volumeAttachmentDefinition = defineBuiltin({
  group: "storage.k8s.io",
  version: "v1",
  resource: "volumeattachments",
  kind: "VolumeAttachment",
  namespaced: false,
  schema: "io.k8s.api.storage.v1.VolumeAttachment",
  status: true,
  table: volumeAttachmentTable,
  strategy: {
    validate: validateVolumeAttachment,
    validateUpdate: validateVolumeAttachmentUpdate,
  },
});
