/** A kubeconfig pointing kubectl and client libraries at the shim. */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { stringify } from "yaml";

export interface KubeconfigOptions {
  server: string;
  token?: string;
  /** PEM of the CA that signed an https server's certificate. */
  certificateAuthority?: string;
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
          ...(o.certificateAuthority && o.server.startsWith("https:")
            ? { "certificate-authority-data": Buffer.from(o.certificateAuthority).toString("base64") }
            : {}),
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

/**
 * Writes the kubeconfig (mode 0600: it holds a token), creating parent directories. An
 * existing file is replaced by a new one, so it gets mode 0600 even if it had another.
 */
export async function writeKubeconfig(path: string, o: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, kubeconfigYaml(o), { mode: 0o600 });
  await rename(temp, path);
}
