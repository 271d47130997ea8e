# Shared helpers for up.sh / down.sh (sourced, not executed).
# shellcheck shell=bash
# Variables defined here are used by the scripts that source this file.
# shellcheck disable=SC2034

cluster_script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cluster_repo_root="$(cd "${cluster_script_dir}/../.." && pwd)"
# shellcheck source=versions.env
source "${cluster_script_dir}/versions.env"

cache_root="${PETSET_CACHE:-${HOME}/.cache/petset}"
bin_dir="${cache_root}/k8s-${K8S_VERSION}/bin"
state_dir="${PETSET_CLUSTER_DIR:-${HOME}/.cache/petset/cluster}"
pki_dir="${state_dir}/pki"
log_dir="${state_dir}/logs"
pid_dir="${state_dir}/pids"
etcd_data_dir="${state_dir}/etcd"

# Start order; down.sh stops them in reverse.
# petset-resizer: the simulated CSI resizer (src/apiserver-shim/kubelet/claim-resizer-main.ts).
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok petset-resizer)

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: ERROR: $*" >&2; exit 1; }

# pid_of NAME: prints the pid of our running NAME process, or fails.
# A pid only counts when /proc/PID/cmdline is NAME (argv[0] basename) started with
# arguments that point into this state dir, so a recycled pid is never mistaken for ours.
pid_of() {
  local name="$1" pid_file="${pid_dir}/$1.pid" pid cmdline argv0
  [[ -f "${pid_file}" ]] || return 1
  pid="$(cat "${pid_file}")"
  [[ "${pid}" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/${pid}/cmdline" ]] || return 1
  cmdline="$(tr '\0' '\n' <"/proc/${pid}/cmdline" 2>/dev/null)" || return 1
  argv0="$(head -n 1 <<<"${cmdline}")"
  [[ "$(basename -- "${argv0}")" == "${name}" ]] || return 1
  grep -qF -- "${state_dir}/" <<<"${cmdline}" || return 1
  echo "${pid}"
}

# alive PID: the process exists and is not a zombie (our daemons are reparented to
# pid 1, which may reap them late; kill -0 succeeds on zombies).
alive() {
  local st
  st="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
  [[ -n "${st}" && "${st}" != Z* ]]
}

# stop_component NAME: SIGTERM our NAME process, wait, SIGKILL after a deadline.
stop_component() {
  local name="$1" pid deadline
  if ! pid="$(pid_of "${name}")"; then
    rm -f "${pid_dir}/${name}.pid"
    return 0
  fi
  log "stopping ${name} (pid ${pid})"
  kill -TERM "${pid}" 2>/dev/null || true
  deadline=$(( SECONDS + ${PETSET_CLUSTER_STOP_TIMEOUT:-20} ))
  while alive "${pid}" && (( SECONDS < deadline )); do
    sleep 0.2
  done
  if alive "${pid}"; then
    log "${name} (pid ${pid}) did not stop in time; sending SIGKILL"
    kill -KILL "${pid}" 2>/dev/null || true
    while alive "${pid}"; do sleep 0.1; done
  fi
  rm -f "${pid_dir}/${name}.pid"
}
