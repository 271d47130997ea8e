/** A kubeconfig pointing kubectl and client libraries at the shim. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { stringify } from "yaml";

export interface KubeconfigOptions {
  server: string;
  token?: string;
  /** Context, cluster and user name (default `petset-dev`). */
  name?: string;
  namespace?: string;
}

export function kubeconfigYaml(o: KubeconfigOptions): string {
  const name = o.name ?? "petset-dev";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    // client-node refuses plain http unless TLS verification is off; kubectl ignores it for http.
    clusters: [
      {
        name,
        cluster: {
          server: o.server,
          ...(o.server.startsWith("http:") ? { "insecure-skip-tls-verify": true } : {}),
        },
      },
    ],
    users: [{ name, user: o.token ? { token: o.token } : {} }],
    contexts: [
      { name, context: { cluster: name, user: name, ...(o.namespace ? { namespace: o.namespace } : {}) } },
    ],
    "current-context": name,
    preferences: {},
  });
}

/** Writes the kubeconfig (mode 0600: it may hold a token), creating parent directories. */
export async function writeKubeconfig(path: string, o: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(o), { mode: 0o600 });
}
