#!/usr/bin/env bash
# The switchover of examples/leader-follower.yaml, run by `kubectl petset observe kv -- …`:
# hand the leader role from $PETSET_POD to $PETSET_CANDIDATE (a follower already at the new
# version). A real store would ask the leader to step down and the candidate to take over;
# here the role is the label the app would set. Idempotent for the same PETSET_HOOK_ID.
set -euo pipefail
[ "${PETSET_HOOK:?}" = switchover ] || exit 0
if [ -z "${PETSET_CANDIDATE:-}" ]; then echo "no follower at the new version to lead" >&2; exit 1; fi
kubectl label pod -n "${PETSET_NAMESPACE:?}" "$PETSET_CANDIDATE" petset.dev/role=leader --overwrite >/dev/null
kubectl label pod -n "$PETSET_NAMESPACE" "${PETSET_POD:?}" petset.dev/role=follower --overwrite >/dev/null
echo "leader role moved from $PETSET_POD to $PETSET_CANDIDATE"
