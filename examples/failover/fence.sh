#!/usr/bin/env bash
# The fencer of examples/failover/db.yaml, run by `kubectl petset observe db -- …` once per
# fence request, with the context in PETSET_* variables (docs/hooks.md, docs/failover.md).
# Success must mean "that node can no longer run the pet or write its volumes". Here the "BMC"
# is a node label: the node is "powered off" by labelling it example.petset.dev/power=off (and
# kept lost). A real fencer calls the BMC or the cloud API and checks the machine is off.
# Idempotent: the controller may ask again with the same PETSET_HOOK_ID (at-least-once).
set -euo pipefail
ns="${PETSET_NAMESPACE:?}"
[ "${PETSET_HOOK:?}" = fence ] || { echo "nothing to do for $PETSET_HOOK"; exit 0; }
node="$(kubectl get pod "${PETSET_POD:?}" -n "$ns" -o jsonpath='{.spec.nodeName}')"
[ -n "$node" ] || { echo "pod $PETSET_POD has no node" >&2; exit 1; }
ready="$(kubectl get node "$node" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')"
if [ "$ready" = True ]; then
  # Never fence a node that answers: the controller would not move the pet anyway.
  echo "node $node is Ready: not fencing it" >&2
  exit 1
fi
echo "fence $PETSET_HOOK_ID: powering off node $node (BMC: label example.petset.dev/power=off)"
kubectl label node "$node" example.petset.dev/power=off kubelet.petset.dev/lost=true --overwrite >/dev/null
# Confirm, as a real fencer asks the BMC for the power state.
[ "$(kubectl get node "$node" -o jsonpath='{.metadata.labels.example\.petset\.dev/power}')" = off ]
echo "node $node is off: $PETSET_POD may move"
