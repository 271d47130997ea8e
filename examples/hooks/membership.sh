#!/usr/bin/env bash
# The babysitter of examples/store-hooks.yaml, run by `kubectl petset observe store -- …`
# once per external hook with the context in PETSET_* variables (docs/hooks.md).
# Membership is a space-separated list in the ConfigMap store-members. Idempotent: the
# controller may ask again with the same PETSET_HOOK_ID after a restart.
set -euo pipefail
ns="${PETSET_NAMESPACE:?}"
members="$(kubectl get configmap store-members -n "$ns" -o jsonpath='{.data.members}')"
without="$(tr ' ' '\n' <<<"$members" | grep -vx "${PETSET_POD:?}" | tr '\n' ' ' | sed 's/ *$//')"
case "${PETSET_HOOK:?}" in
  preScaleDown) next="$without" ;;                       # leave before the pod goes
  postUpdate) next="$(sed 's/^ *//' <<<"$without $PETSET_POD")" ;;  # rejoin after the restart
  *) echo "nothing to do for $PETSET_HOOK"; exit 0 ;;
esac
kubectl patch configmap store-members -n "$ns" --type merge -p "{\"data\":{\"members\":\"$next\"}}" >/dev/null
echo "$PETSET_HOOK $PETSET_POD: members now: $next"
