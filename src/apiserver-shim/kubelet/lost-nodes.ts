/**
 * Simulated node loss: the label `kubelet.petset.dev/lost=true` on a Node makes the simulated
 * kubelet play a node that can no longer reach the API server. Rules:
 * - its heartbeats stop: no node status stage fires and its node Lease is not renewed, so the
 *   node lifecycle controller marks it Ready=Unknown and taints it after its grace period;
 * - its pods' status freezes: no pod stage fires for a pod bound to it (a graceful deletion is
 *   never confirmed, so the pod stays Terminating; a deletion with grace period 0 needs no
 *   kubelet and removes it at once);
 * - removing the label brings it back: the node posts Ready again, its Lease is renewed, and
 *   its pods' stages resume. Pods deleted from the API meanwhile are simply forgotten (the
 *   kubelet of a real node kills the containers of pods no longer in the API).
 * On kube-apiserver the same label makes kwok release the node (test/cluster/up.sh).
 */
export const LostNodeLabel = "kubelet.petset.dev/lost";

export function isLost(labels: Readonly<Record<string, string>> | null | undefined): boolean {
  return labels?.[LostNodeLabel] === "true";
}
