/**
 * The StatefulSet rules kube enforces that clients notice (pkg/apis/apps/validation):
 * required fields, the selector matching the template's labels, enumerations, and which
 * spec fields an update may change.
 */
import { fieldForbidden, fieldInvalid, fieldInvalidGo, fieldNotSupported, fieldRequired } from "../errors.js";
import { validateName } from "../registry/object-meta.js";
import type { FieldError } from "../schema/index.js";
import { labelSelectorRequirements, matchesRequirements } from "../selectors/label-selector.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === "number" && value < 0
    ? [fieldInvalid(field, value, "must be greater than or equal to 0")]
    : [];
}

function validateStrategy(strategy: Obj): FieldError[] {
  const rolling = strategy.rollingUpdate;
  switch (strategy.type) {
    case undefined:
    case "":
      return [fieldRequired("spec.updateStrategy")];
    case "OnDelete":
      return rolling == null
        ? []
        : [
            fieldInvalid(
              "spec.updateStrategy.rollingUpdate",
              rolling,
              "only allowed for updateStrategy 'RollingUpdate'",
            ),
          ];
    case "RollingUpdate": {
      const r = obj(rolling);
      const errs = nonNegative(r.partition, "spec.updateStrategy.rollingUpdate.partition");
      const max = r.maxUnavailable;
      if (max === 0 || max === "0%")
        errs.push(fieldInvalid("spec.updateStrategy.rollingUpdate.maxUnavailable", max, "cannot be 0"));
      return errs;
    }
    default:
      return [fieldInvalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

function validateRetention(policy: unknown): FieldError[] {
  if (!isPlainObject(policy)) return [];
  const errs: FieldError[] = [];
  for (const key of ["whenDeleted", "whenScaled"]) {
    const v = policy[key];
    if (v !== "Retain" && v !== "Delete")
      errs.push(
        fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, v ?? "", ["Retain", "Delete"]),
      );
  }
  return errs;
}

function validateSelector(spec: Obj): FieldError[] {
  const selector = spec.selector;
  if (!isPlainObject(selector)) return [fieldRequired("spec.selector")];
  const reqs = labelSelectorRequirements(selector);
  if (reqs.length === 0) {
    const goSelector = `v1.LabelSelector{MatchLabels:map[string]string${selector.matchLabels ? "{}" : "(nil)"}, MatchExpressions:[]v1.LabelSelectorRequirement${selector.matchExpressions ? "{}" : "(nil)"}}`;
    return [
      fieldInvalidGo("spec.selector", selector, goSelector, "empty selector is invalid for statefulset"),
    ];
  }
  const labels = obj(obj(obj(spec.template).metadata).labels) as Record<string, string>;
  return matchesRequirements(reqs, labels)
    ? []
    : [
        fieldInvalidGo(
          "spec.template.metadata.labels",
          labels,
          goStringMap(labels),
          "`selector` does not match template `labels`",
        ),
      ];
}

/** A label map as Go's %#v prints it (keys sorted). */
function goStringMap(m: Record<string, string>): string {
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`);
  return `map[string]string{${entries.join(", ")}}`;
}

/** kube's ValidateStatefulSetSpec (the pod template itself is not validated there either). */
export function validateStatefulSetSpec(spec: unknown, serviceNameChecked: boolean): FieldError[] {
  if (!isPlainObject(spec)) return [fieldRequired("spec")];
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (policy === undefined || policy === "") errs.push(fieldRequired("spec.podManagementPolicy"));
  else if (policy !== "OrderedReady" && policy !== "Parallel")
    errs.push(fieldInvalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
  errs.push(...validateStrategy(obj(spec.updateStrategy)));
  errs.push(...validateRetention(spec.persistentVolumeClaimRetentionPolicy));
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  errs.push(...nonNegative(obj(spec.ordinals).start, "spec.ordinals.start"));
  if (serviceNameChecked && typeof spec.serviceName === "string" && spec.serviceName)
    errs.push(...validateName(spec.serviceName, "label", "spec.serviceName"));
  errs.push(...validateSelector(spec));
  if (!isPlainObject(spec.template)) errs.push(fieldRequired("spec.template"));
  const podSpec = obj(obj(spec.template).spec);
  if (podSpec.restartPolicy !== "Always")
    errs.push(fieldNotSupported("spec.template.spec.restartPolicy", podSpec.restartPolicy ?? "", ["Always"]));
  if (podSpec.activeDeadlineSeconds != null)
    errs.push(
      fieldForbidden(
        "spec.template.spec.activeDeadlineSeconds",
        "activeDeadlineSeconds in StatefulSet is not Supported",
      ),
    );
  return errs;
}

/** Spec fields an update may change; everything else (selector, serviceName, claim templates, policy) is fixed. */
const UPDATABLE = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "revisionHistoryLimit",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
];

export function validateStatefulSetUpdate(sts: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStatefulSetSpec(sts.spec, false);
  const fixed = (s: unknown) =>
    Object.fromEntries(Object.entries(obj(s)).filter(([k, v]) => !UPDATABLE.includes(k) && v !== undefined));
  if (!deepEqual(fixed(sts.spec), fixed(old.spec)))
    errs.push(
      fieldForbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  return errs;
}

/** kube's ValidateStatefulSetStatus: counts are non-negative and bounded by status.replicas. */
export function validateStatefulSetStatus(sts: KubeObject, old: KubeObject): FieldError[] {
  const status = obj(sts.status);
  const errs: FieldError[] = [];
  for (const key of [
    "replicas",
    "readyReplicas",
    "currentReplicas",
    "updatedReplicas",
    "availableReplicas",
    "observedGeneration",
    "collisionCount",
  ])
    errs.push(...nonNegative(status[key], `status.${key}`));
  const replicas = typeof status.replicas === "number" ? status.replicas : 0;
  for (const key of ["readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"]) {
    const v = status[key];
    if (typeof v === "number" && v > replicas)
      errs.push(fieldInvalid(`status.${key}`, v, "cannot be greater than status.replicas"));
  }
  const ready = typeof status.readyReplicas === "number" ? status.readyReplicas : 0;
  if (typeof status.availableReplicas === "number" && status.availableReplicas > ready)
    errs.push(
      fieldInvalid(
        "status.availableReplicas",
        status.availableReplicas,
        "cannot be greater than status.readyReplicas",
      ),
    );
  const before = obj(old.status).collisionCount;
  const now = status.collisionCount;
  if (typeof before === "number" && (typeof now !== "number" || now < before))
    errs.push(fieldInvalid("status.collisionCount", now ?? 0, "cannot be decremented"));
  return errs;
}
