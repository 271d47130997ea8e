/** Loading a KubeConfig the way every petset command does. */
import { KubeConfig } from "@kubernetes/client-node";

export interface KubeConfigSource {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

/** From a file, else the default chain ($KUBECONFIG, ~/.kube/config, in-cluster). */
export function loadKubeConfig(src: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  if (src.kubeconfig) kc.loadFromFile(src.kubeconfig);
  else kc.loadFromDefault();
  if (src.context) kc.setCurrentContext(src.context);
  return allowPlainHttp(kc);
}

/**
 * kubectl talks to an `http://` server as written (the embedded `petset dev` server on
 * loopback is one); client-node refuses unless the cluster says skipTLSVerify, a flag that
 * means nothing without TLS. For plain-HTTP clusters this returns a copy with the flag set,
 * so petset goes where kubectl goes; any other config is returned unchanged.
 */
export function allowPlainHttp(kc: KubeConfig): KubeConfig {
  if (!kc.clusters.some((c) => c.server.startsWith("http:") && !c.skipTLSVerify)) return kc;
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.server.startsWith("http:") ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  return copy;
}
