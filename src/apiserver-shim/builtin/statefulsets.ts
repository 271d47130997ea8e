/**
 * apps/v1 StatefulSets: stored, defaulted and validated as kube-apiserver does, with the
 * status and scale subresources. The embedded StatefulSet controller
 * (controllers/statefulset-controller.ts) runs them (docs/apiserver-shim.md).
 */
import { formatRequirements, labelSelectorRequirements } from "../selectors/label-selector.js";
import { statefulSetTable } from "../tables/apps-tables.js";
import { isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { defaultPodSpec } from "./pods.js";
import {
  validateStatefulSetSpec,
  validateStatefulSetStatus,
  validateStatefulSetUpdate,
} from "./statefulset-validation.js";

type Obj = Record<string, unknown>;

/** kube's SetDefaults_StatefulSet, plus the pod template's and claim templates' defaults. */
export function defaultStatefulSetSpec(spec: Obj): void {
  spec.podManagementPolicy ??= "OrderedReady";
  if (!isPlainObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy as Obj;
  if (strategy.type === undefined || strategy.type === "") {
    strategy.type = "RollingUpdate";
    strategy.rollingUpdate ??= {};
  }
  if (strategy.type === "RollingUpdate" && isPlainObject(strategy.rollingUpdate))
    strategy.rollingUpdate.partition ??= 0;
  if (!isPlainObject(spec.persistentVolumeClaimRetentionPolicy))
    spec.persistentVolumeClaimRetentionPolicy = {};
  const retention = spec.persistentVolumeClaimRetentionPolicy as Obj;
  retention.whenDeleted ||= "Retain";
  retention.whenScaled ||= "Retain";
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  const template = isPlainObject(spec.template) ? spec.template : undefined;
  if (template && isPlainObject(template.spec)) defaultPodSpec(template.spec);
  if (Array.isArray(spec.volumeClaimTemplates))
    for (const claim of spec.volumeClaimTemplates) {
      if (!isPlainObject(claim)) continue;
      // apps/v1's conversion names the claim templates' kind; PVC defaulting fills the rest.
      claim.apiVersion ??= "v1";
      claim.kind ??= "PersistentVolumeClaim";
      if (isPlainObject(claim.spec)) claim.spec.volumeMode ??= "Filesystem";
      if (!isPlainObject(claim.status)) claim.status = {};
      (claim.status as Obj).phase ||= "Pending";
    }
}

/** The selector as a string, as the Scale's status.selector shows it. */
function selectorString(sts: KubeObject): string {
  const spec = isPlainObject(sts.spec) ? sts.spec : {};
  return formatRequirements(labelSelectorRequirements(spec.selector));
}

export const statefulSetsDefinition = defineBuiltin({
  group: "apps",
  version: "v1",
  resource: "statefulsets",
  kind: "StatefulSet",
  namespaced: true,
  schema: "io.k8s.api.apps.v1.StatefulSet",
  shortNames: ["sts"],
  categories: ["all"],
  status: true,
  scale: {
    specReplicasPath: ".spec.replicas",
    statusReplicasPath: ".status.replicas",
    labelSelectorOf: selectorString,
  },
  table: statefulSetTable,
  // A DNS label: the pods append `-<ordinal>` (kube's ValidateStatefulSetName).
  nameRule: "label",
  strategy: {
    tracksGeneration: true,
    applyDefaults(sts) {
      if (isPlainObject(sts.spec)) defaultStatefulSetSpec(sts.spec);
    },
    prepareForCreate(sts) {
      sts.status = {};
    },
    validate: (sts) => validateStatefulSetSpec(sts.spec, true),
    validateUpdate: validateStatefulSetUpdate,
    validateStatusUpdate: validateStatefulSetStatus,
  },
});
