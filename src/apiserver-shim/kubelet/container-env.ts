/**
 * The environment a container's process sees, resolved the way the kubelet does for the
 * parts the embedded server can know: `envFrom` (ConfigMaps, Secrets) first, then `env`
 * with `$(VAR)` expansion from entries defined earlier, `valueFrom.fieldRef` (downward API
 * fields of the pod), `configMapKeyRef` and `secretKeyRef`. What cannot be resolved here
 * (`resourceFieldRef`, `fileKeyRef`, a missing ConfigMap or key) is skipped and reported:
 * a real kubelet would refuse to start such a container, the simulated one just leaves the
 * variable out. Pure: the objects come from the caller.
 */
import { z } from "zod";

const KeyRef = z.object({ name: z.string().optional(), key: z.string(), optional: z.boolean().optional() });
const EnvVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z
    .object({
      fieldRef: z.object({ fieldPath: z.string() }).optional(),
      configMapKeyRef: KeyRef.optional(),
      secretKeyRef: KeyRef.optional(),
    })
    .passthrough()
    .optional(),
});
const SourceRef = z.object({ name: z.string().optional(), optional: z.boolean().optional() });
const EnvFrom = z.object({
  prefix: z.string().optional(),
  configMapRef: SourceRef.optional(),
  secretRef: SourceRef.optional(),
});
const Container = z.object({
  name: z.string(),
  env: z.array(EnvVar).nullish(),
  envFrom: z.array(EnvFrom).nullish(),
});
const IPs = z.array(z.object({ ip: z.string() })).nullish();

/** The parts of a pod the environment and exec depend on. */
export const ExecPodSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string(),
    uid: z.string(),
    labels: z.record(z.string(), z.string()).nullish(),
    annotations: z.record(z.string(), z.string()).nullish(),
    deletionTimestamp: z.string().nullish(),
  }),
  spec: z.object({
    nodeName: z.string().nullish(),
    hostname: z.string().nullish(),
    serviceAccountName: z.string().nullish(),
    containers: z.array(Container),
    initContainers: z.array(Container).nullish(),
  }),
  status: z
    .object({
      phase: z.string().nullish(),
      podIP: z.string().nullish(),
      hostIP: z.string().nullish(),
      podIPs: IPs,
      hostIPs: IPs,
      containerStatuses: z
        .array(z.object({ name: z.string(), state: z.record(z.string(), z.unknown()).nullish() }))
        .nullish(),
    })
    .nullish(),
});
export type ExecPod = z.infer<typeof ExecPodSchema>;
export type ExecContainer = z.infer<typeof Container>;

/** Data of the ConfigMaps and Secrets (decoded) of the pod's namespace, by name. */
export interface EnvSources {
  configMap(name: string): Record<string, string> | undefined;
  secret(name: string): Record<string, string> | undefined;
}

export interface ResolvedEnv {
  env: Record<string, string>;
  /** Variables left out, each with why (names the field). */
  skipped: string[];
}

const quoted = (m: Record<string, string> | null | undefined) =>
  Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(m?.[k])}`)
    .join("\n");

/** A downward-API `fieldPath` of the pod, as the kubelet formats it; undefined if unsupported. */
export function podFieldValue(pod: ExecPod, fieldPath: string): string | undefined {
  const sub = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (sub) {
    const map = sub[1] === "labels" ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[sub[2]!] ?? "";
  }
  const ips = (l: { ip: string }[] | null | undefined) => (l ?? []).map((i) => i.ip).join(",");
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata.name;
    case "metadata.namespace":
      return pod.metadata.namespace;
    case "metadata.uid":
      return pod.metadata.uid;
    case "metadata.labels":
      return quoted(pod.metadata.labels);
    case "metadata.annotations":
      return quoted(pod.metadata.annotations);
    case "spec.nodeName":
      return pod.spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.podIP":
      return pod.status?.podIP ?? "";
    case "status.hostIP":
      return pod.status?.hostIP ?? "";
    case "status.podIPs":
      return ips(pod.status?.podIPs);
    case "status.hostIPs":
      return ips(pod.status?.hostIPs);
    default:
      return undefined;
  }
}

/**
 * Kubernetes' `$(VAR)` expansion: a reference to a variable defined earlier is replaced,
 * `$$` is a literal `$`, anything else is kept as written.
 */
export function expandVars(value: string, defined: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return name !== undefined && Object.hasOwn(defined, name) ? defined[name]! : m;
  });
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function resolveContainerEnv(
  pod: ExecPod,
  container: ExecContainer,
  sources: EnvSources,
): ResolvedEnv {
  const env: Record<string, string> = {};
  const skipped: string[] = [];
  const where = `pod ${pod.metadata.namespace}/${pod.metadata.name} container ${container.name}`;
  for (const [i, from] of (container.envFrom ?? []).entries()) {
    const kind = from.configMapRef ? "configMapRef" : "secretRef";
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref?.name) continue;
    const data = from.configMapRef ? sources.configMap(ref.name) : sources.secret(ref.name);
    if (!data) {
      if (!ref.optional) skipped.push(`${where}: envFrom[${i}].${kind}: ${ref.name} not found`);
      continue;
    }
    for (const [k, v] of Object.entries(data)) {
      const name = `${from.prefix ?? ""}${k}`;
      if (ENV_NAME.test(name)) env[name] = v;
      else skipped.push(`${where}: envFrom[${i}].${kind}: ${ref.name}: invalid variable name ${name}`);
    }
  }
  for (const [i, v] of (container.env ?? []).entries()) {
    const field = `${where}: env[${i}] (${v.name})`;
    const from = v.valueFrom;
    if (!from) {
      env[v.name] = expandVars(v.value ?? "", env);
      continue;
    }
    const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
    let value: string | undefined;
    if (from.fieldRef) {
      value = podFieldValue(pod, from.fieldRef.fieldPath);
      if (value === undefined) skipped.push(`${field}: fieldRef ${from.fieldRef.fieldPath} is not supported`);
    } else if (keyRef) {
      const kind = from.configMapKeyRef ? "configMapKeyRef" : "secretKeyRef";
      const data = keyRef.name
        ? from.configMapKeyRef
          ? sources.configMap(keyRef.name)
          : sources.secret(keyRef.name)
        : undefined;
      value = data?.[keyRef.key];
      if (value === undefined && !keyRef.optional)
        skipped.push(`${field}: ${kind} ${keyRef.name ?? ""}/${keyRef.key} not found`);
    } else {
      skipped.push(
        `${field}: valueFrom ${Object.keys(from).join(",")} is not supported by the simulated kubelet`,
      );
    }
    if (value !== undefined) env[v.name] = value;
  }
  return { env, skipped };
}
