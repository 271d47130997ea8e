/**
 * Issue 26: StorageClasses (storage.k8s.io/v1) and what kube-apiserver checks when a claim is
 * resized (ValidatePersistentVolumeClaimUpdate with RecoverVolumeExpansionFailure and
 * VolumeAttributesClass on, the PersistentVolumeClaimResize and DefaultStorageClass admission
 * plugins). Claims are bound by hand (a pre-bound PV and a status write) so the embedded server
 * needs no kubelet; on kube-apiserver the PV controller binds them too, which is why the setup
 * steps compare status codes only.
 */

import { isObject } from "../normalize.js";
import type { Json, JsonObject, Scenario } from "../types.js";
import {
  because,
  core,
  del,
  get,
  JSON_PATCH,
  MERGE_PATCH,
  patch,
  pick,
  post,
  statusOnly,
  TABLE,
} from "./helpers.js";

const classes = (name = "") => `/apis/storage.k8s.io/v1/storageclasses${name ? `/${name}` : ""}`;
const volumes = (name = "") => `/api/v1/persistentvolumes${name ? `/${name}` : ""}`;
const BOUND_BY_HAND =
  "on kube-apiserver the PV controller binds the claim and volume as well (annotations, finalizers, status)";

const storageClass = (name: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name },
  provisioner: "example.com/conformance",
  ...extra,
});

/** A PV pre-bound to claim `claim` of the scenario's namespace (kwok deletes it once released). */
const volume = (name: string, claim: string, cls: string): JsonObject => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name, annotations: { "pv.kubernetes.io/provisioned-by": "kwok.x-k8s.io/volume" } },
  spec: {
    accessModes: ["ReadWriteOnce"],
    capacity: { storage: "1Gi" },
    persistentVolumeReclaimPolicy: "Delete",
    storageClassName: cls,
    claimRef: { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "{{ns}}", name: claim },
    hostPath: { path: `/tmp/petset-conformance/${name}` },
  },
});

const claim = (name: string, spec: JsonObject): JsonObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec },
});

/** A claim of `cls` bound by hand to its own pre-bound volume `{{ns}}-NAME`. */
const boundClaim = (name: string, cls: string) => [
  post(`${name}-volume`, volumes(), volume(`{{ns}}-${name}`, name, cls), 201, {
    compare: statusOnly("the PV controller of kube-apiserver's cluster starts binding it at once"),
  }),
  post(
    `${name}-create`,
    core("persistentvolumeclaims"),
    claim(name, { storageClassName: cls, volumeName: `{{ns}}-${name}` }),
    201,
    {
      compare: statusOnly(BOUND_BY_HAND),
    },
  ),
  patch(
    `${name}-bound`,
    `${core("persistentvolumeclaims", name)}/status`,
    MERGE_PATCH,
    { status: { phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" } } },
    200,
    { compare: statusOnly(BOUND_BY_HAND) },
  ),
];

const resize = (step: string, name: string, storage: string, expect: number, extra = {}) =>
  patch(
    step,
    core("persistentvolumeclaims", name),
    MERGE_PATCH,
    { spec: { resources: { requests: { storage } } } },
    expect,
    extra,
  );

/** The class fields that matter to claims (the provisioner is each server's own simulator). */
function classView(body: Json): Json {
  if (!isObject(body) || !isObject(body.metadata)) return body;
  const annotations = isObject(body.metadata.annotations) ? body.metadata.annotations : {};
  return {
    name: body.metadata.name ?? null,
    default: annotations["storageclass.kubernetes.io/is-default-class"] ?? null,
    allowVolumeExpansion: body.allowVolumeExpansion ?? false,
    reclaimPolicy: body.reclaimPolicy ?? null,
    volumeBindingMode: body.volumeBindingMode ?? null,
  };
}

export const storageScenarios: Scenario[] = [
  {
    id: "storageclass/crud",
    steps: [
      post("create", classes(), storageClass("{{ns}}-sc", { parameters: { tier: "a" } })),
      get("table", classes("{{ns}}-sc"), 200, { accept: TABLE }),
      patch("allow-expansion", classes("{{ns}}-sc"), MERGE_PATCH, { allowVolumeExpansion: true }),
      patch("change-parameters", classes("{{ns}}-sc"), MERGE_PATCH, { parameters: { tier: "b" } }, 422),
      patch("change-reclaim-policy", classes("{{ns}}-sc"), MERGE_PATCH, { reclaimPolicy: "Retain" }, 422),
      patch(
        "change-binding-mode",
        classes("{{ns}}-sc"),
        MERGE_PATCH,
        { volumeBindingMode: "WaitForFirstConsumer" },
        422,
      ),
      post(
        "no-provisioner",
        classes(),
        { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "{{ns}}-bad" } },
        422,
      ),
      del("delete", classes("{{ns}}-sc")),
    ],
  },
  {
    id: "storageclass/test-cluster-classes",
    steps: [
      get("standard", classes("standard"), 200, {
        compare: because(
          "the provisioner is each server's simulator; kubectl apply annotates the real one",
          classView,
        ),
      }),
      get("fixed-size", classes("fixed-size"), 200, {
        compare: because(
          "the provisioner is each server's simulator; kubectl apply annotates the real one",
          classView,
        ),
      }),
    ],
  },
  {
    id: "pvc/default-class",
    steps: [
      post("create", core("persistentvolumeclaims"), claim("c1", {}), 201, {
        compare: because(
          "only the class the DefaultStorageClass admission plugin filled in is of interest here",
          pick("spec.storageClassName"),
        ),
      }),
    ],
  },
  {
    id: "pvc/resize-admission",
    steps: [
      ...boundClaim("fixed", "fixed-size"),
      ...boundClaim("grows", "standard"),
      post(
        "pending-create",
        core("persistentvolumeclaims"),
        claim("pending", { storageClassName: "conformance-none" }),
        201,
        {
          compare: statusOnly("the PVC protection finalizer is added by kube only"),
        },
      ),
      resize("grow-fixed", "fixed", "2Gi", 403),
      resize("shrink-below-capacity", "grows", "500Mi", 422),
      resize("grow-expandable", "grows", "2Gi", 200, {
        compare: because(BOUND_BY_HAND, pick("spec.resources", "spec.storageClassName")),
      }),
      resize("grow-pending", "pending", "2Gi", 422),
      patch(
        "change-class",
        core("persistentvolumeclaims", "grows"),
        MERGE_PATCH,
        { spec: { storageClassName: "fixed-size" } },
        422,
      ),
      patch(
        "set-attributes-class",
        core("persistentvolumeclaims", "fixed"),
        MERGE_PATCH,
        { spec: { volumeAttributesClassName: "gold" } },
        200,
        {
          compare: because(BOUND_BY_HAND, pick("spec.volumeAttributesClassName")),
        },
      ),
      patch(
        "unset-attributes-class",
        core("persistentvolumeclaims", "fixed"),
        JSON_PATCH,
        [{ op: "remove", path: "/spec/volumeAttributesClassName" }],
        422,
      ),
      del("fixed-volume-delete", volumes("{{ns}}-fixed"), 200, {
        compare: statusOnly("cleanup of the cluster-scoped volume"),
      }),
      del("grows-volume-delete", volumes("{{ns}}-grows"), 200, {
        compare: statusOnly("cleanup of the cluster-scoped volume"),
      }),
    ],
  },
];
