#!/usr/bin/env bash
# "Pull the plug" on the node running a pet: its heartbeats stop (the simulated kubelet on
# `petset dev`, kwok on the test cluster), and after the node-monitor grace period it is
# Ready=Unknown with the unreachable taints. Usage: lose-node.sh POD [NAMESPACE]
# Bring it back: kubectl label node NODE kubelet.petset.dev/lost- example.petset.dev/power-
set -euo pipefail
pod="${1:?usage: lose-node.sh POD [NAMESPACE]}"
ns="${2:-default}"
node="$(kubectl get pod "$pod" -n "$ns" -o jsonpath='{.spec.nodeName}')"
kubectl label node "$node" kubelet.petset.dev/lost=true --overwrite >/dev/null
echo "node $node ($pod) is lost; it turns Ready=Unknown after the node-monitor grace period"
