#!/usr/bin/env bash
# Stops the test control plane started by up.sh (make cluster-down).
# Only processes recorded in <state>/pids/ whose command line is ours are signalled.
# Without --keep, the cluster's data is removed too (etcd data, certificates, tokens,
# kubeconfigs); logs are kept for post-mortems. With --keep, the next up.sh resumes the
# same cluster (same objects, same credentials).
# Env: PETSET_CLUSTER_DIR (state dir, default ~/.cache/petset/cluster).
set -euo pipefail

# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

keep=0
for arg in "$@"; do
  case "${arg}" in
    --keep) keep=1 ;;
    -h|--help)
      sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) die "unknown argument: ${arg} (usage: down.sh [--keep])" ;;
  esac
done

if [[ ! -d "${state_dir}" ]]; then
  log "nothing to stop (no ${state_dir})"
  exit 0
fi

exec 9>"${state_dir}/.lock"
flock 9

for (( i = ${#components[@]} - 1; i >= 0; i-- )); do
  stop_component "${components[i]}"
done

if (( keep )); then
  log "stopped; data kept in ${state_dir}"
else
  rm -rf "${etcd_data_dir}" "${pki_dir}" "${state_dir}/tokens.csv" "${state_dir}"/kubeconfig* \
    "${state_dir}/cluster.env" "${state_dir}"/*fingerprint
  log "stopped; data removed (logs kept in ${log_dir})"
fi
