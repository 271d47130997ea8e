/**
 * batch/v1 Jobs: kube's defaults (SetDefaults_Job), the generated selector and template
 * labels when manualSelector is unset, the essential validation (restartPolicy, template,
 * selector matching the template, non-negative counts), an immutable template, the status
 * subresource and the `kubectl get jobs` columns. The embedded job controller
 * (controllers/job-controller.ts) runs them.
 */
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { labelSelectorRequirements, matchesRequirements } from "../selectors/label-selector.js";
import { jobTable } from "../tables/job-table.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { validatePodSpec } from "./pod-validation.js";
import { defaultPodSpec } from "./pods.js";

type Obj = Record<string, unknown>;

export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";

function template(job: KubeObject): Obj | undefined {
  const spec = job.spec;
  return isPlainObject(spec) && isPlainObject(spec.template) ? spec.template : undefined;
}

function templateLabels(t: Obj): Record<string, string> {
  if (!isPlainObject(t.metadata)) t.metadata = {};
  const meta = t.metadata as Obj;
  if (!isPlainObject(meta.labels)) meta.labels = {};
  return meta.labels as Record<string, string>;
}

/** kube's SetDefaults_Job (with the JobPodReplacementPolicy gate on, as in 1.33). */
export function defaultJob(job: KubeObject): void {
  if (!isPlainObject(job.spec)) return;
  const spec = job.spec;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2_147_483_647 : 6;
  const t = template(job);
  const tLabels =
    t && isPlainObject(t.metadata) && isPlainObject(t.metadata.labels) ? t.metadata.labels : undefined;
  if (tLabels && Object.keys(job.metadata.labels ?? {}).length === 0)
    job.metadata.labels = { ...(tLabels as Record<string, string>) };
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? "Failed" : "TerminatingOrFailed";
  spec.manualSelector ??= false;
  if (t && isPlainObject(t.spec)) {
    // enableServiceLinks is a Pod default (SetDefaults_Pod), not a PodSpec one: templates keep it unset.
    const serviceLinks = t.spec.enableServiceLinks;
    defaultPodSpec(t.spec);
    if (serviceLinks === undefined) delete t.spec.enableServiceLinks;
  }
}

/**
 * The selector and template labels kube generates (generateSelector). The Job's own labels
 * get them too when it has none or they were defaulted from the template's (kube shares the map).
 */
function generateSelector(job: KubeObject): void {
  const spec = job.spec as Obj;
  const t = template(job);
  if (spec.manualSelector === true || !t) return;
  const labels = templateLabels(t);
  // Empirically (kube-apiserver 1.33): a Job without labels of its own gets the template's, generated ones included.
  const own = job.metadata.labels ?? {};
  const jobLabelsFromTemplate = Object.keys(own).length === 0 || deepEqual(own, labels);
  const name = job.metadata.name ?? "";
  const uid = job.metadata.uid ?? "";
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= uid;
  if (jobLabelsFromTemplate) job.metadata.labels = { ...labels };
  if (!isPlainObject(spec.selector)) spec.selector = {};
  const selector = spec.selector as Obj;
  if (!isPlainObject(selector.matchLabels)) selector.matchLabels = {};
  (selector.matchLabels as Obj)[CONTROLLER_UID_LABEL] ??= uid;
}

function nonNegative(spec: Obj, key: string, errs: FieldError[], positive = false): void {
  const v = spec[key];
  if (v == null) return;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || (positive && v === 0))
    errs.push(
      fieldInvalid(
        `spec.${key}`,
        v,
        positive ? "must be greater than 0" : "must be greater than or equal to 0",
      ),
    );
}

export function validateJob(job: KubeObject): FieldError[] {
  if (!isPlainObject(job.spec)) return [fieldRequired("spec")];
  const spec = job.spec;
  const errs: FieldError[] = [];
  for (const key of ["parallelism", "completions", "backoffLimit", "ttlSecondsAfterFinished"])
    nonNegative(spec, key, errs);
  nonNegative(spec, "activeDeadlineSeconds", errs, true);
  if (spec.completionMode !== "NonIndexed" && spec.completionMode !== "Indexed")
    errs.push(fieldNotSupported("spec.completionMode", spec.completionMode, ["NonIndexed", "Indexed"]));
  const t = template(job);
  if (!t) return [...errs, fieldRequired("spec.template")];
  if (!isPlainObject(spec.selector)) errs.push(fieldRequired("spec.selector"));
  else {
    const labels = isPlainObject(t.metadata) && isPlainObject(t.metadata.labels) ? t.metadata.labels : {};
    if (!matchesRequirements(labelSelectorRequirements(spec.selector), labels as Record<string, string>))
      errs.push(
        fieldInvalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"),
      );
  }
  errs.push(...validatePodSpec(t.spec, "spec.template.spec"));
  const rp = isPlainObject(t.spec) ? t.spec.restartPolicy : undefined;
  if (rp !== "OnFailure" && rp !== "Never")
    errs.push(fieldRequired("spec.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'));
  return errs;
}

/** What may not change after create: the template, selector, completion mode and (NonIndexed) completions. */
export function validateJobUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const spec = (isPlainObject(job.spec) ? job.spec : {}) as Obj;
  const prev = (isPlainObject(old.spec) ? old.spec : {}) as Obj;
  const errs: FieldError[] = [];
  const immutable = (key: string) => {
    if (!deepEqual(spec[key], prev[key]))
      errs.push(fieldInvalid(`spec.${key}`, spec[key] ?? null, "field is immutable"));
  };
  immutable("template");
  immutable("selector");
  immutable("completionMode");
  if (spec.completionMode !== "Indexed") immutable("completions");
  return errs;
}

export const jobsDefinition = defineBuiltin({
  group: "batch",
  version: "v1",
  resource: "jobs",
  kind: "Job",
  namespaced: true,
  schema: "io.k8s.api.batch.v1.Job",
  categories: ["all"],
  status: true,
  table: jobTable,
  fieldLabels: (o) => ({
    "status.successful": String(((o.status ?? {}) as Obj).succeeded ?? 0),
  }),
  strategy: {
    tracksGeneration: true,
    applyDefaults: defaultJob,
    prepareForCreate(job) {
      generateSelector(job);
      job.status = {};
    },
    validate: validateJob,
    validateUpdate: (job, old) => [...validateJob(job), ...validateJobUpdate(job, old)],
  },
});
