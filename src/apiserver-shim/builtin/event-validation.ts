/**
 * kube's Event validation (pkg/apis/core/validation/events.go), with kube's messages, on the
 * core/v1 form of an Event (events.k8s.io/v1 Events are validated after conversion, as kube
 * validates the internal object: field paths name the core fields, `involvedObject`).
 * - Every Event passes the legacy rules: without eventTime, involvedObject.namespace must
 *   match the Event's namespace; with eventTime, reporting controller and instance, action
 *   and reason are required and bounded; the namespace is a DNS-1123 subdomain.
 * - Events created through events.k8s.io/v1 also pass the strict rules: a DNS-1123 subdomain
 *   name, a valid series, eventTime required, type Normal or Warning, and none of the
 *   deprecated core fields (firstTimestamp, lastTimestamp, count, source).
 * Not emulated: events.k8s.io/v1's immutability rules on update (kube prints the refused
 * values with Go's %v); updates pass the legacy rules only.
 */
import { fieldInvalid, fieldRequired } from "../errors.js";
import { validateName } from "../registry/object-meta.js";
import type { FieldError } from "../schema/index.js";
import { isPlainObject, type KubeObject } from "../types.js";

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_REGEX_ERROR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

type Obj = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
/** A Go time field is zero when absent or null. */
const isSet = (v: unknown): boolean => typeof v === "string" && v !== "";

/** validation.IsDNS1123Subdomain. */
function subdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(SUBDOMAIN_ERROR);
  return errs;
}

/** validation.IsQualifiedName. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name = parts[0] ?? "";
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix === "") errs.push("prefix part must be non-empty");
    else errs.push(...subdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return [
      `a qualified name ${QUALIFIED_NAME_REGEX_ERROR} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === "") errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${QUALIFIED_NAME_REGEX_ERROR}`);
  return errs;
}

function tooLong(field: string, limit: number): FieldError {
  return fieldInvalid(field, "", `can have at most ${limit} characters`);
}

/** legacyValidateEvent; `reportingField` is how the request's API version names the controller. */
function legacyErrors(
  e: KubeObject,
  reportingField: "reportingComponent" | "reportingController",
): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? "";
  const involvedNs = str(obj(e.involvedObject).namespace);
  const mismatch = () =>
    fieldInvalid("involvedObject.namespace", involvedNs, "does not match event.namespace");
  if (!isSet(e.eventTime)) {
    if (involvedNs === "" ? ns !== "" && ns !== "default" : ns !== involvedNs) errs.push(mismatch());
  } else {
    if (involvedNs === "" && ns !== "default" && ns !== "kube-system") errs.push(mismatch());
    const controller = str(e.reportingComponent);
    if (controller === "") errs.push(fieldRequired(reportingField));
    for (const m of qualifiedNameErrors(controller)) errs.push(fieldInvalid(reportingField, controller, m));
    const instance = str(e.reportingInstance);
    if (instance === "") errs.push(fieldRequired("reportingInstance"));
    if (instance.length > REPORTING_INSTANCE_LIMIT)
      errs.push(tooLong("reportingInstance", REPORTING_INSTANCE_LIMIT));
    const action = str(e.action);
    if (action === "") errs.push(fieldRequired("action"));
    if (action.length > ACTION_LIMIT) errs.push(tooLong("action", ACTION_LIMIT));
    const reason = str(e.reason);
    if (reason === "") errs.push(fieldRequired("reason"));
    if (reason.length > REASON_LIMIT) errs.push(tooLong("reason", REASON_LIMIT));
    if (str(e.message).length > NOTE_LIMIT) errs.push(tooLong("message", NOTE_LIMIT));
  }
  for (const m of subdomainErrors(ns)) errs.push(fieldInvalid("namespace", ns, m));
  return errs;
}

/** validateV1EventSeries. */
function seriesErrors(e: KubeObject): FieldError[] {
  if (!isPlainObject(e.series)) return [];
  const errs: FieldError[] = [];
  const count = e.series.count;
  if (typeof count !== "number" || count < 2)
    errs.push(fieldInvalid("series.count", "", "should be at least 2"));
  if (!isSet(e.series.lastObservedTime)) errs.push(fieldRequired("series.lastObservedTime"));
  return errs;
}

/** ValidateEventCreate for a core/v1 Event created through core/v1 (legacy rules only). */
export function validateCoreEventCreate(e: KubeObject): FieldError[] {
  return legacyErrors(e, "reportingComponent");
}

/** ValidateEventUpdate through core/v1, and the emulated part of it through events.k8s.io/v1. */
export function validateEventUpdate(e: KubeObject, via: "core" | "events.k8s.io"): FieldError[] {
  return legacyErrors(e, via === "core" ? "reportingComponent" : "reportingController");
}

/** ValidateEventCreate through events.k8s.io/v1: legacy and strict rules, on the core form. */
export function validateEventsV1Create(e: KubeObject): FieldError[] {
  const errs = legacyErrors(e, "reportingController");
  errs.push(...validateName(e.metadata.name, "subdomain"));
  errs.push(...seriesErrors(e));
  if (!isSet(e.eventTime)) errs.push(fieldRequired("eventTime"));
  const type = str(e.type);
  if (type !== "Normal" && type !== "Warning")
    errs.push(fieldInvalid("type", "", `has invalid value: ${type}`));
  if (isSet(e.firstTimestamp)) errs.push(fieldInvalid("firstTimestamp", "", "needs to be unset"));
  if (isSet(e.lastTimestamp)) errs.push(fieldInvalid("lastTimestamp", "", "needs to be unset"));
  if (typeof e.count === "number" && e.count !== 0) errs.push(fieldInvalid("count", "", "needs to be unset"));
  const source = obj(e.source);
  if (str(source.component) !== "" || str(source.host) !== "")
    errs.push(fieldInvalid("source", "", "needs to be unset"));
  return errs;
}
