/**
 * The environment a container's process gets from the simulated kubelet: the container's
 * `env` with plain values and downward-API `fieldRef`s resolved against the pod (as the
 * kubelet does), plus PATH (so `sh` and friends resolve), HOME (the pod's working
 * directory) and HOSTNAME (the pod name). Nothing else of the host's environment leaks
 * in. `valueFrom` sources other than fieldRef (configMap, secret, resourceField) are
 * left out: the variable is unset. Pure.
 */
import { z } from "zod";

const EnvVarSchema = z.looseObject({
  name: z.string(),
  value: z.string().optional().nullable(),
  valueFrom: z
    .looseObject({ fieldRef: z.looseObject({ fieldPath: z.string() }).optional().nullable() })
    .optional()
    .nullable(),
});

export const RunnableContainerSchema = z.looseObject({
  name: z.string(),
  image: z.string().optional(),
  command: z.array(z.string()).optional().nullable(),
  args: z.array(z.string()).optional().nullable(),
  env: z.array(EnvVarSchema).optional().nullable(),
});
export type RunnableContainer = z.infer<typeof RunnableContainerSchema>;

/** The pod fields downward-API fieldRefs read. */
export interface PodFacts {
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  nodeName: string;
  serviceAccountName: string;
  podIP: string;
  hostIP: string;
}

/** `metadata.labels['app']` → labels.app; the fieldPaths kube's downward API allows in env. */
export function resolveFieldRef(path: string, pod: PodFacts): string | undefined {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return keyed[1] === "labels" ? pod.labels[keyed[2]!] : pod.annotations[keyed[2]!];
  const simple: Record<string, string> = {
    "metadata.name": pod.name,
    "metadata.namespace": pod.namespace,
    "metadata.uid": pod.uid,
    "spec.nodeName": pod.nodeName,
    "spec.serviceAccountName": pod.serviceAccountName,
    "status.podIP": pod.podIP,
    "status.podIPs": pod.podIP,
    "status.hostIP": pod.hostIP,
    "status.hostIPs": pod.hostIP,
  };
  return simple[path];
}

/** `$(VAR)` references to earlier variables expand, `$$` escapes, unknown ones stay (kube's expansion). */
export function expandRefs(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return name !== undefined && name in vars ? vars[name]! : m;
  });
}

export function containerEnv(
  c: RunnableContainer,
  pod: PodFacts,
  base: { path: string; home: string },
): Record<string, string> {
  const env: Record<string, string> = { PATH: base.path, HOME: base.home, HOSTNAME: pod.name };
  const declared: Record<string, string> = {};
  for (const v of c.env ?? []) {
    let value: string | undefined;
    if (v.valueFrom?.fieldRef) value = resolveFieldRef(v.valueFrom.fieldRef.fieldPath, pod);
    else if (!v.valueFrom) value = expandRefs(v.value ?? "", declared);
    if (value === undefined) continue;
    declared[v.name] = value;
    env[v.name] = value;
  }
  return env;
}

/** The argv of a container (`command` then `args`, refs expanded), or undefined when it has no command. */
export function containerArgv(c: RunnableContainer, env: Record<string, string>): string[] | undefined {
  const command = c.command ?? [];
  if (command.length === 0) return undefined;
  return [...command, ...(c.args ?? [])].map((a) => expandRefs(a, env));
}
