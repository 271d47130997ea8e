/** Loading a KubeConfig the way every petset command does. */
import { KubeConfig } from "@kubernetes/client-node";

export interface KubeConfigSource {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

/**
 * From a file, else the default chain ($KUBECONFIG, ~/.kube/config, in-cluster).
 * client-node refuses plain `http:` servers unless the cluster is marked skipTLSVerify;
 * the embedded server serves plain HTTP on loopback, so such clusters get the flag (there
 * is no TLS to verify). Any other cluster is left exactly as configured.
 */
export function loadKubeConfig(src: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  if (src.kubeconfig) kc.loadFromFile(src.kubeconfig);
  else kc.loadFromDefault();
  if (src.context) kc.setCurrentContext(src.context);
  const needsFix = kc.clusters.some((c) => c.server.startsWith("http:") && !c.skipTLSVerify);
  if (!needsFix) return kc;
  const fixed = new KubeConfig();
  fixed.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.server.startsWith("http:") ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  return fixed;
}
