/** ObjectMeta rules shared by every resource: names, system fields, generation. */
import { randomUUID } from "node:crypto";
import { fieldForbidden, fieldInvalid, fieldRequired } from "../errors.js";
import { fieldErrors } from "../schema/field-error.js";
import type { FieldError } from "../schema/index.js";
import { rfc3339 } from "../time.js";
import { deepEqual, type KubeObject } from "../types.js";

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** k8s.io/apimachinery/pkg/api/validation TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

export function generateName(prefix: string): string {
  let s = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

export type NameRule = "subdomain" | "label" | "path-segment";

export function validateName(
  name: string | undefined,
  rule: NameRule,
  field = "metadata.name",
): FieldError[] {
  if (!name) return [fieldRequired(field, "name or generateName is required")];
  if (rule === "path-segment") {
    if (name === "." || name === ".." || /[/%]/.test(name))
      return [fieldInvalid(field, name, `may not contain '/' or '%' and may not be '.' or '..'`)];
    return [];
  }
  if (rule === "label") {
    if (name.length > 63 || !DNS1123_LABEL.test(name))
      return [
        fieldInvalid(
          field,
          name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      ];
    return [];
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name))
    return [
      fieldInvalid(
        field,
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ];
  return [];
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Label keys and values, annotation keys, ownerReferences and finalizers. */
export function validateMetadata(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const m = obj.metadata;
  for (const [k, v] of Object.entries(m.labels ?? {})) {
    if (!validQualifiedName(k))
      errs.push(
        fieldInvalid(
          "metadata.labels",
          k,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    if (typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v))
      errs.push(
        fieldInvalid(
          "metadata.labels",
          v,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
      );
  }
  for (const k of Object.keys(m.annotations ?? {}))
    if (!validQualifiedName(k.toLowerCase()))
      errs.push(
        fieldInvalid(
          "metadata.annotations",
          k,
          "name part must consist of alphanumeric characters, '-', '_' or '.'",
        ),
      );
  // kube's ValidateAnnotationsSize: keys and values together, in bytes.
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(m.annotations ?? {}))
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(typeof v === "string" ? v : "");
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES)
    errs.push(fieldErrors.tooLong("metadata.annotations", "", TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  (m.ownerReferences ?? []).forEach((r, i) => {
    const f = `metadata.ownerReferences[${i}]`;
    if (!r.apiVersion)
      errs.push(fieldInvalid(`${f}.apiVersion`, r.apiVersion ?? "", "version must not be empty"));
    if (!r.kind) errs.push(fieldInvalid(`${f}.kind`, r.kind ?? "", "kind must not be empty"));
    if (!r.name) errs.push(fieldInvalid(`${f}.name`, r.name ?? "", "name must not be empty"));
    if (!r.uid) errs.push(fieldInvalid(`${f}.uid`, r.uid ?? "", "uid must not be empty"));
  });
  if ((m.ownerReferences ?? []).filter((r) => r.controller).length > 1)
    errs.push(
      fieldInvalid(
        "metadata.ownerReferences",
        m.ownerReferences,
        "Only one reference can have Controller set to true",
      ),
    );
  return errs;
}

function validQualifiedName(k: string): boolean {
  const parts = k.split("/");
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (parts.length === 2 && (parts[0]!.length > 253 || !DNS1123_SUBDOMAIN.test(parts[0]!))) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** Fills uid, creationTimestamp, generation; clears what clients may not set. */
export function initSystemFields(obj: KubeObject, now: Date, tracksGeneration: boolean): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = rfc3339(now);
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (tracksGeneration) m.generation = 1;
  else delete m.generation;
}

/** Carries the fields a client cannot change on update from `old`. */
export function keepSystemFields(obj: KubeObject, old: KubeObject): void {
  const m = obj.metadata;
  const o = old.metadata;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.name = o.name;
  if (o.namespace !== undefined) m.namespace = o.namespace;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (o.generation !== undefined) m.generation = o.generation;
  else delete m.generation;
  delete m.selfLink;
}

/** kube bumps generation when anything but metadata (and status, with a status subresource) changes. */
export function specChanged(obj: KubeObject, old: KubeObject, statusSubresource: boolean): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status, ...rest } = o;
    return statusSubresource ? rest : { ...rest, status };
  };
  return !deepEqual(strip(obj), strip(old));
}

export function validateMetadataUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (old.metadata.deletionTimestamp) {
    const before = new Set(old.metadata.finalizers ?? []);
    const added = [...new Set((obj.metadata.finalizers ?? []).filter((f) => !before.has(f)))].sort();
    // ValidateNoNewFinalizers prints the new ones with Go's %#v of a []string.
    if (added.length)
      errs.push(
        fieldForbidden(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
  }
  return errs;
}
