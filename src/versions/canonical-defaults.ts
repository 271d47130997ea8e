import { isJsonObject, type Json } from "./canonical-json.js";

/**
 * Fields that mean the same present as absent, so the canonical form drops them.
 *
 * Kubernetes writes defaults into pod templates in several ways we cannot control: the
 * core defaulting of built-in kinds (a template copied from `kubectl get sts -o yaml`
 * carries `terminationMessagePath`, `dnsPolicy`, ...), defaults a future version of our
 * CRD may declare in its schema, and Go's serialization of non-pointer structs
 * (`resources: {}`, `creationTimestamp: null`). None of these may ever cause a rollout, so
 * each rule strips one such field when its value is exactly the Kubernetes default. A
 * value other than the default is kept: it is a real choice and must version.
 *
 * Rule of thumb for adding a rule: only a value the API server itself would fill in for
 * an absent field, at the exact path where it does. Any default the CRD declares inside
 * the template must appear here (test/unit/versions/crd-defaults.test.ts checks it).
 */
export interface DefaultRule {
  /** Dotted path from the versioned content; `[]` stands for every element of a list. */
  readonly path: string;
  /** The default as documentation prints it. */
  readonly shows: string;
  /** Why present-with-this-value equals absent. */
  readonly why: string;
  /** True when `value` (already canonical) means the same as the field being absent. */
  readonly isDefault: (value: Json, owner: Readonly<Record<string, unknown>>) => boolean;
}

const equals =
  (expected: string | number | boolean) =>
  (value: Json): boolean =>
    value === expected;

const always = (): boolean => true;

const isEmptyObject = (value: Json): boolean => isJsonObject(value) && Object.keys(value).length === 0;

/**
 * `Always` for an untagged or `:latest` image, `IfNotPresent` otherwise (including a
 * digest), exactly as the API server defaults a container.
 */
export function defaultPullPolicy(image: unknown): string {
  if (typeof image !== "string" || image.includes("@")) return "IfNotPresent";
  const lastComponent = image.slice(image.lastIndexOf("/") + 1);
  const colon = lastComponent.lastIndexOf(":");
  if (colon < 0) return "Always";
  return lastComponent.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

const POD = "template.spec";
// Ephemeral containers cannot be in a template, but the CRD schema (from PodSpec) has them.
const CONTAINER_LISTS = [`${POD}.containers[]`, `${POD}.initContainers[]`, `${POD}.ephemeralContainers[]`];
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"];
const LIFECYCLE_HANDLERS = ["lifecycle.postStart", "lifecycle.preStop"];
const MODE_VOLUMES = ["configMap", "secret", "downwardAPI", "projected"];
const CLAIM_TEMPLATE_SPECS = [
  "volumeClaimTemplates[].spec",
  `${POD}.volumes[].ephemeral.volumeClaimTemplate.spec`,
];

function httpGetRules(handler: string): DefaultRule[] {
  return [
    {
      path: `${handler}.httpGet.scheme`,
      shows: "HTTP",
      why: "HTTPGetAction defaulting sets an empty scheme to HTTP",
      isDefault: equals("HTTP"),
    },
    {
      path: `${handler}.httpGet.path`,
      shows: "/",
      why: "HTTPGetAction defaulting sets an empty path to /",
      isDefault: equals("/"),
    },
  ];
}

function containerRules(container: string): DefaultRule[] {
  const probeFields: Array<[string, number]> = [
    ["timeoutSeconds", 1],
    ["periodSeconds", 10],
    ["successThreshold", 1],
    ["failureThreshold", 3],
  ];
  return [
    {
      path: `${container}.terminationMessagePath`,
      shows: "/dev/termination-log",
      why: "container defaulting; present in every template read back from a built-in kind",
      isDefault: equals("/dev/termination-log"),
    },
    {
      path: `${container}.terminationMessagePolicy`,
      shows: "File",
      why: "container defaulting",
      isDefault: equals("File"),
    },
    {
      path: `${container}.imagePullPolicy`,
      shows: "Always for :latest or untagged images, else IfNotPresent",
      why: "container defaulting derives it from the image; compared against the same image",
      isDefault: (value, owner) => value === defaultPullPolicy(owner.image),
    },
    {
      path: `${container}.ports[].protocol`,
      shows: "TCP",
      why: "ContainerPort defaulting; also the OpenAPI default, so a CRD generated from it adds it",
      isDefault: equals("TCP"),
    },
    {
      path: `${container}.resources`,
      shows: "{}",
      why: "a non-pointer struct: Go always writes it, empty when nothing is requested",
      isDefault: isEmptyObject,
    },
    {
      path: `${container}.securityContext`,
      shows: "{}",
      why: "an empty security context sets nothing",
      isDefault: isEmptyObject,
    },
    {
      path: `${container}.env[].valueFrom.fieldRef.apiVersion`,
      shows: "v1",
      why: "ObjectFieldSelector defaulting",
      isDefault: equals("v1"),
    },
    ...PROBES.flatMap((probe) => [
      ...probeFields.map(
        ([field, value]): DefaultRule => ({
          path: `${container}.${probe}.${field}`,
          shows: String(value),
          why: "Probe defaulting",
          isDefault: equals(value),
        }),
      ),
      ...httpGetRules(`${container}.${probe}`),
    ]),
    ...LIFECYCLE_HANDLERS.flatMap((handler) => httpGetRules(`${container}.${handler}`)),
  ];
}

function claimSpecRules(spec: string): DefaultRule[] {
  return [
    {
      path: `${spec}.volumeMode`,
      shows: "Filesystem",
      why: "PersistentVolumeClaimSpec defaulting",
      isDefault: equals("Filesystem"),
    },
    {
      path: `${spec}.resources`,
      shows: "{}",
      why: "a non-pointer struct: Go always writes it",
      isDefault: isEmptyObject,
    },
  ];
}

export const CANONICAL_DEFAULTS: readonly DefaultRule[] = [
  {
    path: "template.metadata.creationTimestamp",
    shows: "anything",
    why: "a template is never created; Go writes the zero time as null and clients echo it back",
    isDefault: always,
  },
  {
    path: "template.metadata",
    shows: "{}",
    why: "a non-pointer struct: Go always writes it",
    isDefault: isEmptyObject,
  },
  {
    path: `${POD}.restartPolicy`,
    shows: "Always",
    why: "pod defaulting",
    isDefault: equals("Always"),
  },
  {
    path: `${POD}.dnsPolicy`,
    shows: "ClusterFirst",
    why: "pod defaulting",
    isDefault: equals("ClusterFirst"),
  },
  {
    path: `${POD}.schedulerName`,
    shows: "default-scheduler",
    why: "pod defaulting",
    isDefault: equals("default-scheduler"),
  },
  {
    path: `${POD}.terminationGracePeriodSeconds`,
    shows: "30",
    why: "pod defaulting",
    isDefault: equals(30),
  },
  {
    path: `${POD}.enableServiceLinks`,
    shows: "true",
    why: "absent means true; admission writes it on every pod",
    isDefault: equals(true),
  },
  {
    path: `${POD}.securityContext`,
    shows: "{}",
    why: "pod defaulting adds an empty pod security context",
    isDefault: isEmptyObject,
  },
  ...MODE_VOLUMES.map(
    (volume): DefaultRule => ({
      path: `${POD}.volumes[].${volume}.defaultMode`,
      shows: "420 (0644)",
      why: `${volume} volume defaulting`,
      isDefault: equals(420),
    }),
  ),
  {
    path: `${POD}.imagePullSecrets[].name`,
    shows: '""',
    why: "the OpenAPI default of LocalObjectReference.name, which the CRD schema declares",
    isDefault: equals(""),
  },
  {
    path: `${POD}.volumes[].hostPath.type`,
    shows: '""',
    why: "HostPathVolumeSource defaulting writes the empty type (no check)",
    isDefault: equals(""),
  },
  ...CONTAINER_LISTS.flatMap(containerRules),
  {
    path: "volumeClaimTemplates[].apiVersion",
    shows: "v1",
    why: "the only PersistentVolumeClaim version; StatefulSet defaulting writes it",
    isDefault: equals("v1"),
  },
  {
    path: "volumeClaimTemplates[].kind",
    shows: "PersistentVolumeClaim",
    why: "the only kind a claim template can be; StatefulSet defaulting writes it",
    isDefault: equals("PersistentVolumeClaim"),
  },
  {
    path: "volumeClaimTemplates[].metadata.creationTimestamp",
    shows: "anything",
    why: "a template is never created; Go writes the zero time as null",
    isDefault: always,
  },
  {
    path: "volumeClaimTemplates[].status",
    shows: "anything",
    why: "observed state, never pod-shaping; defaulting writes `phase: Pending`",
    isDefault: always,
  },
  ...CLAIM_TEMPLATE_SPECS.flatMap(claimSpecRules),
];

const RULES_BY_PATH: ReadonlyMap<string, readonly DefaultRule[]> = (() => {
  const map = new Map<string, DefaultRule[]>();
  for (const rule of CANONICAL_DEFAULTS) map.set(rule.path, [...(map.get(rule.path) ?? []), rule]);
  return map;
})();

/** True when a rule says `value` at `path` is the default, so the field can be dropped. */
export function isCanonicalDefault(
  path: string,
  value: Json,
  owner: Readonly<Record<string, unknown>>,
): boolean {
  return RULES_BY_PATH.get(path)?.some((rule) => rule.isDefault(value, owner)) ?? false;
}
