#!/usr/bin/env bash
# Starts a real Kubernetes control plane on loopback for tests (make cluster-up):
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (simulated
# kubelet for 3 fake nodes). Binaries come from build.sh (built from Go modules).
#
# Idempotent: when the cluster of this state dir is already running and healthy it only
# prints the kubeconfig. Prints `kubeconfig: <path>` (admin) as its last line.
#
# Env:
#   PETSET_CLUSTER_DIR          state dir (default ~/.cache/petset/cluster)
#   PETSET_CACHE                binary cache root (default ~/.cache/petset)
#   PETSET_CLUSTER_NODES        number of fake nodes (default 3)
#   PETSET_CLUSTER_NODE_PODS    pods each fake node takes (default 110, kubelet's default; the
#                               10,000-PetSet scale benchmark needs 30,000 pods)
#   PETSET_SCHEDULER_QPS        kube-scheduler's client QPS (default 50, its own; burst twice
#                               that): at 50 binds/s, 30,000 pods take ten minutes to schedule
#   PETSET_CLUSTER_TIMEOUT      seconds to wait for each component (default 120)
#   PETSET_ETCD_FSYNC           1: let etcd fsync (default: --unsafe-no-fsync, test data)
#   PETSET_CLUSTER_SKIP_CRDS    1: do not install crds/*.yaml (default: install when present)
#   PETSET_APISERVER_PROFILING  1: kube-apiserver serves /debug/pprof (to the admin token), for
#                               `go tool pprof` of the server under a benchmark (default 0)
#   PETSET_CLUSTER_PROFILE      test (default) | statefulset-bench: kube-controller-manager runs
#                               only what a StatefulSet needs (statefulset, namespace,
#                               serviceaccount, nodelifecycle), so its CPU is the StatefulSet
#                               controller's, and kube-apiserver and kube-controller-manager run
#                               with the MaxUnavailableStatefulSet feature gate (bench/rollout-
#                               compare.ts; use a state dir of its own, not the test cluster's)
#   KUBECTL                     kubectl to use (default: kubectl in PATH)
# Files written into the state dir: kubeconfig (admin, group system:masters),
# kubeconfig-controller (user petset-controller, RBAC from deploy/rbac.yaml),
# cluster.env (paths and URL, shell syntax), logs/<component>.log, pids/<component>.pid,
# audit/audit.log (kube-apiserver audit log, JSON lines: every write request at Metadata
# level with its userAgent, so tests can count the writes of one controller replica;
# rotated at 50 MB into audit/audit-<time>.log, 3 kept) and audit-policy.yaml.
set -euo pipefail

# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

timeout_s="${PETSET_CLUSTER_TIMEOUT:-120}"
node_count="${PETSET_CLUSTER_NODES:-3}"
node_pods="${PETSET_CLUSTER_NODE_PODS:-110}"
scheduler_qps="${PETSET_SCHEDULER_QPS:-50}"
kubectl_bin="${KUBECTL:-kubectl}"

# The built-in statefulset controller runs too: it never touches PetSets or their pods, and
# `kubectl petset adopt` is tested against StatefulSets it runs (test/integration/adopt.test.ts).
# The job and ttl-after-finished controllers run Jobs (lifecycle hooks' `job` handler;
# test/integration/jobs.test.ts); kwok-stages/job-pod.yaml finishes their pods.
# Lost nodes (issue 27; docs/failover.md, "Simulated node loss"): nodelifecycle marks a node
# whose kwok Lease stops Ready=Unknown and taints it, taint-eviction-controller evicts what
# does not tolerate that, podgc removes pods of deleted nodes, attachdetach attaches CSI volumes
# (kwok-stages/csi.yaml) with VolumeAttachments.
kcm_controllers="garbagecollector,namespace,serviceaccount,serviceaccount-token,nodelifecycle,taint-eviction-controller,pvc-protection,pv-protection,podgc,persistentvolume-binder,attachdetach,statefulset,job,ttl-after-finished"
feature_gates=()
case "${PETSET_CLUSTER_PROFILE:-test}" in
  # VolumeAttributesClass (beta, off by default in 1.33; with storage.k8s.io/v1beta1 below):
  # kube refuses volumeAttributesClassName changes on claims without it (issue 26).
  test) feature_gates=(--feature-gates=VolumeAttributesClass=true) ;;
  statefulset-bench)
    # No garbage collector (it watches every resource), no volume, job or pod GC controllers:
    # the namespace controller empties deleted namespaces; nodelifecycle lifts the not-ready taint.
    kcm_controllers="statefulset,namespace,serviceaccount,nodelifecycle"
    feature_gates=(--feature-gates=MaxUnavailableStatefulSet=true)
    ;;
  *) echo "cluster: ERROR: PETSET_CLUSTER_PROFILE: unknown profile ${PETSET_CLUSTER_PROFILE}" >&2; exit 1 ;;
esac

# The simulated resizer's own code: when it changes, up.sh restarts only that process.
resizer_sources=("${cluster_repo_root}"/src/apiserver-shim/kubelet/claim-resize*.ts
  "${cluster_repo_root}"/src/apiserver-shim/builtin/claim-update-validation.ts)
resizer_fingerprint="$(cat "${resizer_sources[@]}" | sha256sum | cut -d' ' -f1)"

# What the running processes were started with: a change (controllers, settings,
# versions, kwok stages, this script) makes up.sh restart the cluster, keeping its data.
fingerprint="$( {
  echo "${kcm_controllers} nodes=${node_count} pods=${node_pods} schedqps=${scheduler_qps} fsync=${PETSET_ETCD_FSYNC:-0} pprof=${PETSET_APISERVER_PROFILING:-0} ${feature_gates[*]}"
  cat "${cluster_script_dir}/versions.env" "${cluster_script_dir}"/kwok-stages/*.yaml "${BASH_SOURCE[0]}"
} | sha256sum | cut -d' ' -f1)"

command -v "${kubectl_bin}" >/dev/null || die "kubectl not found (set KUBECTL)"
command -v openssl >/dev/null || die "openssl not found"
command -v curl >/dev/null || die "curl not found"

start_time="${SECONDS}"

# ---------------------------------------------------------------- helpers

admin_token() { awk -F, '$2=="admin"{print $1}' "${state_dir}/tokens.csv"; }

api_url() {
  # shellcheck source=/dev/null
  (source "${state_dir}/ports.env" && echo "https://127.0.0.1:${APISERVER_PORT}")
}

apiserver_ready() {
  [[ -f "${state_dir}/ports.env" && -f "${state_dir}/tokens.csv" ]] || return 1
  [[ "$(curl -fsS --max-time 5 --cacert "${pki_dir}/ca.crt" \
    -H "Authorization: Bearer $(admin_token)" "$(api_url)/readyz" 2>/dev/null)" == "ok" ]]
}

all_running() {
  local c
  # cluster.env is written last: without it the previous up.sh did not finish.
  [[ -f "${state_dir}/cluster.env" ]] || return 1
  for c in "${components[@]}"; do
    [[ "${c}" == petset-resizer ]] && continue # restarted on its own (start_resizer)
    pid_of "${c}" >/dev/null || return 1
  done
  [[ "$(cat "${state_dir}/fingerprint" 2>/dev/null)" == "${fingerprint}" ]] || return 1
  apiserver_ready
}

# ---- petset-resizer (issue 26): the simulated CSI external-resizer + kubelet volume
# expansion, the same code the embedded server runs (docs/volumes.md). Compiled from src/
# into .cache/ (tsc --incremental: seconds when unchanged); run by node under the name
# petset-resizer (a symlink in the bin dir) so pid_of knows it. Started with the cluster, and
# alone (the rest left running) when it is not running or its code changed.
resizer_started() { grep -q "simulated resizer started" "${log_dir}/petset-resizer.log"; }
resizer_current() {
  pid_of petset-resizer >/dev/null \
    && [[ "$(cat "${state_dir}/resizer-fingerprint" 2>/dev/null)" == "${resizer_fingerprint}" ]]
}
start_resizer() {
  local out="${cluster_repo_root}/.cache/cluster-resizer"
  command -v node >/dev/null || die "node not found (the simulated resizer runs on node)"
  stop_component petset-resizer
  log "compiling the simulated resizer"
  (cd "${cluster_repo_root}" && ./node_modules/.bin/tsc --outDir "${out}" --rootDir src \
    --incremental --tsBuildInfoFile "${out}/.tsbuildinfo" --module NodeNext \
    --moduleResolution NodeNext --target ES2023 --skipLibCheck --types node \
    src/apiserver-shim/kubelet/claim-resizer-main.ts >"${log_dir}/petset-resizer-build.log" 2>&1) || true
  [[ -f "${out}/apiserver-shim/kubelet/claim-resizer-main.js" ]] \
    || die "compiling the simulated resizer failed; log: ${log_dir}/petset-resizer-build.log"
  ln -sfn "$(node -p process.execPath)" "${bin_dir}/petset-resizer"
  start petset-resizer "${out}/apiserver-shim/kubelet/claim-resizer-main.js" \
    --kubeconfig="${state_dir}/kubeconfig-resizer"
  echo "${resizer_fingerprint}" >"${state_dir}/resizer-fingerprint"
}

print_result() {
  log "ready in $(( SECONDS - start_time ))s; admin: ${state_dir}/kubeconfig, controller: ${state_dir}/kubeconfig-controller"
  echo "kubeconfig: ${state_dir}/kubeconfig"
}

port_free() {
  # Nothing accepts a connection on it (bash /dev/tcp; no extra tools needed).
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

declare -A chosen_ports=()
# pick_port VAR PREVIOUS: set VAR to PREVIOUS when that port is free (stable ports
# across restarts), else to a random free port in 20000-32767 (below Linux's ephemeral
# range). Never hands out the same port twice.
pick_port() {
  local var="$1" prev="${2:-}" p i
  if [[ -n "${prev}" && -z "${chosen_ports[${prev}]:-}" ]] && port_free "${prev}"; then
    chosen_ports[${prev}]=1
    printf -v "${var}" '%s' "${prev}"
    return 0
  fi
  for (( i = 0; i < 200; i++ )); do
    p=$(( 20000 + RANDOM % 12768 ))
    if [[ -z "${chosen_ports[${p}]:-}" ]] && port_free "${p}"; then
      chosen_ports[${p}]=1
      printf -v "${var}" '%s' "${p}"
      return 0
    fi
  done
  die "no free port found"
}

# wait_for NAME DESCRIPTION COMMAND...: poll COMMAND until it succeeds, while NAME runs.
wait_for() {
  local name="$1" what="$2"
  shift 2
  local deadline=$(( SECONDS + timeout_s ))
  until "$@" >/dev/null 2>&1; do
    if ! pid_of "${name}" >/dev/null; then
      tail -n 40 "${log_dir}/${name}.log" >&2 || true
      die "${name} exited while waiting for ${what}; log: ${log_dir}/${name}.log"
    fi
    if (( SECONDS >= deadline )); then
      tail -n 40 "${log_dir}/${name}.log" >&2 || true
      die "timed out after ${timeout_s}s waiting for ${what}; log: ${log_dir}/${name}.log"
    fi
    sleep 0.25
  done
}

# start NAME ARGS...: start bin/NAME detached (own session), log and pid file.
start() {
  local name="$1"
  shift
  if [[ -f "${log_dir}/${name}.log" ]]; then
    mv -f "${log_dir}/${name}.log" "${log_dir}/${name}.log.prev"
  fi
  log "starting ${name}"
  # fd 9 (the state dir lock) is closed so the long-running process does not hold it.
  setsid "${bin_dir}/${name}" "$@" </dev/null >"${log_dir}/${name}.log" 2>&1 9>&- &
  local pid=$! deadline=$(( SECONDS + 10 ))
  echo "${pid}" >"${pid_dir}/${name}.pid"
  # Until the forked shell has exec'd the binary, its cmdline is not ours yet.
  until pid_of "${name}" >/dev/null; do
    if ! alive "${pid}" || (( SECONDS >= deadline )); then
      tail -n 40 "${log_dir}/${name}.log" >&2 || true
      die "${name} failed to start; log: ${log_dir}/${name}.log"
    fi
    sleep 0.05
  done
}

write_kubeconfig() (
  # write_kubeconfig FILE USER TOKEN (a subshell: the umask stays local)
  file="$1" user="$2" token="$3"
  umask 077
  cat >"${file}" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: petset-test
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 <"${pki_dir}/ca.crt")
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: ${user}@petset-test
  context:
    cluster: petset-test
    user: ${user}
current-context: ${user}@petset-test
KUBECONFIG
)

gen_certs() {
  [[ -f "${pki_dir}/ca.crt" && -f "${pki_dir}/apiserver.crt" && -f "${pki_dir}/sa.key" \
    && -f "${pki_dir}/front-proxy-client.crt" ]] && { gen_kubelet_cert; return 0; }
  log "generating certificates in ${pki_dir}"
  mkdir -p "${pki_dir}"
  chmod 700 "${pki_dir}"
  local cnf="${pki_dir}/apiserver.cnf"
  openssl genrsa -out "${pki_dir}/ca.key" 2048 2>/dev/null
  openssl req -x509 -new -nodes -key "${pki_dir}/ca.key" -sha256 -days 3650 \
    -subj "/CN=petset-test-ca" -out "${pki_dir}/ca.crt" 2>/dev/null
  cat >"${cnf}" <<CNF
[req]
distinguished_name = dn
[dn]
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
CNF
  openssl genrsa -out "${pki_dir}/apiserver.key" 2048 2>/dev/null
  openssl req -new -key "${pki_dir}/apiserver.key" -subj "/CN=kube-apiserver" \
    -out "${pki_dir}/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "${pki_dir}/apiserver.csr" -CA "${pki_dir}/ca.crt" \
    -CAkey "${pki_dir}/ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "${cnf}" -extensions ext -out "${pki_dir}/apiserver.crt" 2>/dev/null
  # Front proxy (request header) CA and client: lets kube-controller-manager and
  # kube-scheduler complete delegated authentication, as in a kubeadm cluster.
  openssl genrsa -out "${pki_dir}/front-proxy-ca.key" 2048 2>/dev/null
  openssl req -x509 -new -nodes -key "${pki_dir}/front-proxy-ca.key" -sha256 -days 3650 \
    -subj "/CN=petset-test-front-proxy-ca" -out "${pki_dir}/front-proxy-ca.crt" 2>/dev/null
  cat >"${pki_dir}/front-proxy-client.cnf" <<CNF
[req]
distinguished_name = dn
[dn]
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
CNF
  openssl genrsa -out "${pki_dir}/front-proxy-client.key" 2048 2>/dev/null
  openssl req -new -key "${pki_dir}/front-proxy-client.key" -subj "/CN=front-proxy-client" \
    -out "${pki_dir}/front-proxy-client.csr" 2>/dev/null
  openssl x509 -req -in "${pki_dir}/front-proxy-client.csr" -CA "${pki_dir}/front-proxy-ca.crt" \
    -CAkey "${pki_dir}/front-proxy-ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "${pki_dir}/front-proxy-client.cnf" -extensions ext \
    -out "${pki_dir}/front-proxy-client.crt" 2>/dev/null
  # Service account token signing key pair.
  openssl genrsa -out "${pki_dir}/sa.key" 2048 2>/dev/null
  openssl rsa -in "${pki_dir}/sa.key" -pubout -out "${pki_dir}/sa.pub" 2>/dev/null
  chmod 600 "${pki_dir}"/*.key
  gen_kubelet_cert
}

# The serving certificate of kwok's kubelet server (exec, logs), signed by the cluster CA
# for 127.0.0.1: kube-apiserver verifies it (--kubelet-certificate-authority) when it
# proxies `kubectl exec` to the node. Generated on its own so older state dirs get it too.
gen_kubelet_cert() {
  [[ -f "${pki_dir}/kubelet.crt" ]] && return 0
  log "generating the kubelet (kwok) serving certificate"
  cat >"${pki_dir}/kubelet.cnf" <<CNF
[req]
distinguished_name = dn
[dn]
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
CNF
  openssl genrsa -out "${pki_dir}/kubelet.key" 2048 2>/dev/null
  openssl req -new -key "${pki_dir}/kubelet.key" -subj "/CN=kwok-kubelet" \
    -out "${pki_dir}/kubelet.csr" 2>/dev/null
  openssl x509 -req -in "${pki_dir}/kubelet.csr" -CA "${pki_dir}/ca.crt" \
    -CAkey "${pki_dir}/ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "${pki_dir}/kubelet.cnf" -extensions ext -out "${pki_dir}/kubelet.crt" 2>/dev/null
  chmod 600 "${pki_dir}/kubelet.key"
}

new_token() { openssl rand -hex 24; }

gen_tokens() (
  [[ -f "${state_dir}/tokens.csv" ]] && exit 0
  log "generating tokens"
  umask 077
  # token,user,uid,"groups" (kube-apiserver --token-auth-file format)
  {
    echo "$(new_token),admin,admin,\"system:masters\""
    echo "$(new_token),petset-controller,petset-controller"
    echo "$(new_token),system:kube-controller-manager,system:kube-controller-manager"
    echo "$(new_token),system:kube-scheduler,system:kube-scheduler"
    echo "$(new_token),kwok,kwok,\"system:masters\""
  } >"${state_dir}/tokens.csv"
)

token_of() { awk -F, -v u="$1" '$2==u{print $1}' "${state_dir}/tokens.csv"; }

kubectl_admin() { "${kubectl_bin}" --kubeconfig "${state_dir}/kubeconfig" "$@"; }

nodes_ready() {
  local out
  out="$(kubectl_admin get nodes -l type=kwok -o \
    jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{" "}{.spec.taints}{"\n"}{end}')" || return 1
  [[ "$(grep -c . <<<"${out}")" -ge "${node_count}" ]] || return 1
  # Ready and the node.kubernetes.io/not-ready taint removed by nodelifecycle.
  ! grep -v -E '^[^ ]+ True $' <<<"${out}" | grep -q .
}

default_sa_exists() { kubectl_admin get serviceaccount default -n default; }

# Manifests applied into the cluster: StorageClass, deploy/rbac.yaml and the CRDs in
# crds/ (if any). Re-applied by up.sh on a running cluster when they changed.
shopt -s nullglob
crd_files=("${cluster_repo_root}"/crds/*.yaml "${cluster_repo_root}"/crds/*.yml "${cluster_repo_root}"/crds/*.json)
shopt -u nullglob
if [[ "${PETSET_CLUSTER_SKIP_CRDS:-0}" == "1" ]]; then
  crd_files=()
fi
manifests_fingerprint="$(cat "${cluster_script_dir}/manifests/storage.yaml" "${cluster_script_dir}/manifests/csi.yaml" \
  "${cluster_script_dir}/manifests/kwok-guard.yaml" "${cluster_repo_root}/deploy/rbac.yaml" ${crd_files[@]+"${crd_files[@]}"} | sha256sum | cut -d' ' -f1)"

crds_established() { kubectl_admin wait --for=condition=Established crd --all --timeout=5s; }

apply_manifests() {
  rm -f "${state_dir}/manifests-fingerprint"
  kubectl_admin apply -f "${cluster_script_dir}/manifests/storage.yaml" >/dev/null
  kubectl_admin apply -f "${cluster_script_dir}/manifests/csi.yaml" >/dev/null
  kubectl_admin apply -f "${cluster_script_dir}/manifests/kwok-guard.yaml" >/dev/null
  kubectl_admin apply -f "${cluster_repo_root}/deploy/rbac.yaml" >/dev/null
  if [[ "${PETSET_CLUSTER_SKIP_CRDS:-0}" == "1" ]]; then
    log "PETSET_CLUSTER_SKIP_CRDS=1: not installing crds/"
  elif (( ${#crd_files[@]} > 0 )); then
    log "installing ${#crd_files[@]} CRD file(s) from crds/"
    local f crd_args=()
    for f in "${crd_files[@]}"; do crd_args+=(-f "${f}"); done
    kubectl_admin apply --server-side --force-conflicts "${crd_args[@]}" >/dev/null \
      || die "installing crds/ failed (PETSET_CLUSTER_SKIP_CRDS=1 skips them)"
    # A CRD created a moment ago may have no status.conditions yet, which kubectl wait
    # reports as an error rather than waiting: poll instead.
    wait_for kube-apiserver "CRDs Established" crds_established
    gc_probe
  fi
  echo "${manifests_fingerprint}" >"${state_dir}/manifests-fingerprint"
}

# kube-controller-manager's garbage collector learns new kinds by re-reading discovery (every
# 30 s): until then it can neither orphan nor delete their dependents, and a test of
# --cascade=orphan right after a fresh start races it (the dependents are deleted later as
# dangling). Probe: a PetSet deleted with --cascade=orphan keeps the orphan finalizer until
# the garbage collector knows the kind.
gc_probe_gone() { ! kubectl_admin -n default get petsets.petset.dev petset-gc-probe >/dev/null 2>&1; }
gc_probe() {
  [[ ",${kcm_controllers}," == *,garbagecollector,* ]] || return 0
  kubectl_admin get crd petsets.petset.dev >/dev/null 2>&1 || return 0
  kubectl_admin -n default apply -f - >/dev/null <<'PROBE'
apiVersion: petset.dev/v1alpha1
kind: PetSet
metadata:
  name: petset-gc-probe
spec:
  replicas: 0
  selector:
    matchLabels: {app: petset-gc-probe}
  template:
    metadata:
      labels: {app: petset-gc-probe}
    spec:
      containers: [{name: probe, image: probe}]
PROBE
  kubectl_admin -n default delete petsets.petset.dev petset-gc-probe --cascade=orphan --wait=false >/dev/null
  wait_for kube-controller-manager "garbage collector knows the CRDs" gc_probe_gone
}

# ---------------------------------------------------------------- main

# One up.sh/down.sh at a time per state dir.
mkdir -p "${state_dir}"
exec 9>"${state_dir}/.lock"
flock 9

if all_running; then
  log "cluster already running (state: ${state_dir})"
  if ! resizer_current; then
    start_resizer
    wait_for petset-resizer "the simulated resizer's claim watch" resizer_started
  fi
  if [[ "$(cat "${state_dir}/manifests-fingerprint" 2>/dev/null)" != "${manifests_fingerprint}" ]]; then
    log "storage class, kwok guard, RBAC or CRDs changed: re-applying"
    apply_manifests
  fi
  print_result
  exit 0
fi

# Anything half-running (a crashed component, changed settings, an unfinished up.sh) is
# stopped first; the etcd data, certificates and tokens are kept.
rm -f "${state_dir}/cluster.env"
for (( i = ${#components[@]} - 1; i >= 0; i-- )); do
  stop_component "${components[i]}"
done

bash "${cluster_script_dir}/build.sh"
# helm for the chart tests (test/integration/helm.test.ts), idempotent as build.sh.
bash "${cluster_script_dir}/build-helm.sh" >/dev/null

mkdir -p "${state_dir}" "${log_dir}" "${pid_dir}" "${etcd_data_dir}"
chmod 700 "${state_dir}" "${etcd_data_dir}"
gen_certs
gen_tokens

# Ports: keep the previous ones when still free.
declare -A prev_ports=()
if [[ -f "${state_dir}/ports.env" ]]; then
  while IFS='=' read -r key value; do
    [[ "${key}" =~ ^[A-Z_]+$ && "${value}" =~ ^[0-9]+$ ]] && prev_ports[${key}]="${value}"
  done <"${state_dir}/ports.env"
fi
for var in ETCD_PORT ETCD_PEER_PORT APISERVER_PORT KCM_PORT SCHEDULER_PORT KWOK_PORT; do
  pick_port "${var}" "${prev_ports[${var}]:-}"
done
cat >"${state_dir}/ports.env" <<PORTS
ETCD_PORT=${ETCD_PORT}
ETCD_PEER_PORT=${ETCD_PEER_PORT}
APISERVER_PORT=${APISERVER_PORT}
KCM_PORT=${KCM_PORT}
SCHEDULER_PORT=${SCHEDULER_PORT}
KWOK_PORT=${KWOK_PORT}
PORTS

# ---- etcd
etcd_args=(
  --name=petset
  --data-dir="${etcd_data_dir}"
  --listen-client-urls="http://127.0.0.1:${ETCD_PORT}"
  --advertise-client-urls="http://127.0.0.1:${ETCD_PORT}"
  --listen-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}"
  --initial-advertise-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}"
  --initial-cluster="petset=http://127.0.0.1:${ETCD_PEER_PORT}"
  --initial-cluster-state=new
  --quota-backend-bytes=2147483648
  --log-level=warn
)
if [[ "${PETSET_ETCD_FSYNC:-0}" != "1" ]]; then
  etcd_args+=(--unsafe-no-fsync)
fi
start etcd "${etcd_args[@]}"
etcd_healthy() {
  curl -fsS --max-time 2 "http://127.0.0.1:${ETCD_PORT}/health" | grep -q '"health":"true"'
}
wait_for etcd "etcd health" etcd_healthy

# ---- kube-apiserver
# Audit: writes only (reads and watches would dwarf them), Metadata level (who, what, when,
# which userAgent; no bodies), one entry per request (ResponseComplete). Blocking mode: the
# entry is in the file before the response is sent, so a test reads it right after.
mkdir -p "${state_dir}/audit"
cat >"${state_dir}/audit-policy.yaml" <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  # kwok renews a Lease per fake node every few seconds: noise.
  - level: None
    namespaces: [kube-node-lease]
  - level: Metadata
    verbs: [create, update, patch, delete, deletecollection]
  - level: None
POLICY
start kube-apiserver \
  --audit-policy-file="${state_dir}/audit-policy.yaml" \
  --audit-log-path="${state_dir}/audit/audit.log" \
  --audit-log-format=json \
  --audit-log-mode=blocking \
  --audit-log-maxsize=50 \
  --audit-log-maxbackup=3 \
  --etcd-servers="http://127.0.0.1:${ETCD_PORT}" \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="${APISERVER_PORT}" \
  --cert-dir="${pki_dir}/generated" \
  --tls-cert-file="${pki_dir}/apiserver.crt" \
  --tls-private-key-file="${pki_dir}/apiserver.key" \
  --client-ca-file="${pki_dir}/ca.crt" \
  --token-auth-file="${state_dir}/tokens.csv" \
  --requestheader-client-ca-file="${pki_dir}/front-proxy-ca.crt" \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User \
  --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="${pki_dir}/front-proxy-client.crt" \
  --proxy-client-key-file="${pki_dir}/front-proxy-client.key" \
  --authorization-mode=Node,RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="${pki_dir}/sa.pub" \
  --service-account-signing-key-file="${pki_dir}/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --endpoint-reconciler-type=none \
  --allow-privileged=true \
  --kubelet-certificate-authority="${pki_dir}/ca.crt" \
  --kubelet-preferred-address-types=InternalIP \
  --profiling="$([[ "${PETSET_APISERVER_PROFILING:-0}" == "1" ]] && echo true || echo false)" \
  --runtime-config=storage.k8s.io/v1beta1=true \
  ${feature_gates[@]+"${feature_gates[@]}"} \
  --v=1
wait_for kube-apiserver "kube-apiserver /readyz" apiserver_ready

write_kubeconfig "${state_dir}/kubeconfig" admin "$(token_of admin)"
write_kubeconfig "${state_dir}/kubeconfig-controller" petset-controller "$(token_of petset-controller)"
write_kubeconfig "${state_dir}/kubeconfig-kcm" system:kube-controller-manager "$(token_of system:kube-controller-manager)"
write_kubeconfig "${state_dir}/kubeconfig-scheduler" system:kube-scheduler "$(token_of system:kube-scheduler)"
write_kubeconfig "${state_dir}/kubeconfig-kwok" kwok "$(token_of kwok)"
# The resizer is kwok's companion (it plays the kubelet's volume expansion): kwok's user.
write_kubeconfig "${state_dir}/kubeconfig-resizer" kwok "$(token_of kwok)"

# ---- kube-controller-manager
start kube-controller-manager \
  --kubeconfig="${state_dir}/kubeconfig-kcm" \
  --authentication-kubeconfig="${state_dir}/kubeconfig-kcm" \
  --authorization-kubeconfig="${state_dir}/kubeconfig-kcm" \
  --bind-address=127.0.0.1 \
  --secure-port="${KCM_PORT}" \
  --cert-dir="${pki_dir}/generated" \
  --controllers="${kcm_controllers}" \
  --use-service-account-credentials=true \
  --service-account-private-key-file="${pki_dir}/sa.key" \
  --root-ca-file="${pki_dir}/ca.crt" \
  --cluster-name=petset-test \
  --leader-elect=false \
  --kube-api-qps=100 \
  --kube-api-burst=200 \
  --profiling=false \
  --node-monitor-grace-period=20s \
  --node-monitor-period=2s \
  ${feature_gates[@]+"${feature_gates[@]}"} \
  --v=1
kcm_healthy() { [[ "$(curl -fsSk --max-time 2 "https://127.0.0.1:${KCM_PORT}/healthz")" == "ok" ]]; }

# ---- kube-scheduler
# --pod-max-in-unschedulable-pods-duration (kube's 5 min; the queue looks every 30 s): a pod
# created with its claim still Pending fails with "unbound immediate PersistentVolumeClaims"
# and waits for the claim's update to be retried; the scheduler's volume cache is fed by a
# handler of its own, so that retry can still read the claim unbound and the pod then waits
# for the leftover flush (kubernetes#93552). Seen once in CI (a pet Pending for 90 s with its
# claim Bound). 10 s here: such a pod is retried within 40 s; pods that cannot fit stay
# Pending as before, with one more FailedScheduling event per retry.
start kube-scheduler \
  --kubeconfig="${state_dir}/kubeconfig-scheduler" \
  --authentication-kubeconfig="${state_dir}/kubeconfig-scheduler" \
  --authorization-kubeconfig="${state_dir}/kubeconfig-scheduler" \
  --bind-address=127.0.0.1 \
  --secure-port="${SCHEDULER_PORT}" \
  --cert-dir="${pki_dir}/generated" \
  --leader-elect=false \
  --kube-api-qps="${scheduler_qps}" \
  --kube-api-burst="$(( scheduler_qps * 2 ))" \
  --pod-max-in-unschedulable-pods-duration=10s \
  --profiling=false \
  --v=1
scheduler_healthy() { [[ "$(curl -fsSk --max-time 2 "https://127.0.0.1:${SCHEDULER_PORT}/healthz")" == "ok" ]]; }

# ---- kwok (simulated kubelet for nodes annotated kwok.x-k8s.io/node=fake)
# A node labelled kubelet.petset.dev/lost=true is released (the label selector): its Lease
# is no longer renewed and its pods are left as they are, so nodelifecycle marks it
# Ready=Unknown after --node-monitor-grace-period (20 s here, 50 s in kube; nodelifecycle looks
# every 2 s); removing the label makes kwok take it back. Node Leases last 15 s (kube's 40 s),
# renewed every 3.75 s: a node survives a 16 s stall of kwok.
# kwok treats a node whose Lease is held by another holder as read-only until the
# lease expires (15 s). The previous kwok of this cluster is stopped by now, so its
# node leases are dropped and the new kwok takes the nodes over at once.
lease_names="$(kubectl_admin get nodes -l type=kwok -o name 2>/dev/null | sed 's#^node/##')"
if [[ -n "${lease_names}" ]]; then
  # shellcheck disable=SC2086 # word splitting of node names intended
  kubectl_admin -n kube-node-lease delete lease --ignore-not-found ${lease_names} >/dev/null
fi
kwok_config=()
for f in "${cluster_script_dir}"/kwok-stages/*.yaml; do
  kwok_config+=(--config="${f}")
done
# pods/exec: kwok runs `kubectl exec` commands as local processes of the kwok process (the
# user running this script), for every pod and container, in one shared working directory.
# kwok's exec config is static: the container's env, image and filesystem play no part
# (docs/conformance.md). PETSET_EXEC_BACKEND lets a command tell where it runs.
exec_work_dir="${state_dir}/exec"
mkdir -p "${exec_work_dir}"
cat >"${state_dir}/kwok-exec.yaml" <<EXEC
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: local-exec
spec:
  execs:
    - local:
        workDir: ${exec_work_dir}
        envs:
          - name: PETSET_EXEC_BACKEND
            value: kwok
EXEC
kwok_config+=(--config="${state_dir}/kwok-exec.yaml")
start kwok \
  --kubeconfig="${state_dir}/kubeconfig-kwok" \
  "${kwok_config[@]}" \
  --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  '--manage-nodes-with-label-selector=!kubelet.petset.dev/lost' \
  --server-address="127.0.0.1:${KWOK_PORT}" \
  --tls-cert-file="${pki_dir}/kubelet.crt" \
  --tls-private-key-file="${pki_dir}/kubelet.key" \
  --node-port="${KWOK_PORT}" \
  --node-lease-duration-seconds=15 \
  --cidr=10.244.0.0/16 \
  --node-ip=127.0.0.1
kwok_healthy() {
  curl -fsS --max-time 2 --cacert "${pki_dir}/ca.crt" "https://127.0.0.1:${KWOK_PORT}/healthz" >/dev/null
}

# ---- petset-resizer (start_resizer above)
start_resizer

wait_for kube-controller-manager "kube-controller-manager /healthz" kcm_healthy
wait_for kube-scheduler "kube-scheduler /healthz" scheduler_healthy
wait_for kwok "kwok /healthz" kwok_healthy
wait_for petset-resizer "the simulated resizer's claim watch" resizer_started

# ---- cluster objects
log "applying storage class, RBAC, CRDs, nodes"
apply_manifests
nodes_manifest=""
for (( i = 0; i < node_count; i++ )); do
  nodes_manifest+="---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-${i}
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
    volumes.kubernetes.io/controller-managed-attach-detach: \"true\"
  labels:
    type: kwok
    kubernetes.io/hostname: kwok-node-${i}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node-role.kubernetes.io/agent: \"\"
    topology.kubernetes.io/zone: zone-${i}
status:
  allocatable:
    cpu: \"32\"
    memory: 128Gi
    pods: \"${node_pods}\"
  capacity:
    cpu: \"32\"
    memory: 128Gi
    pods: \"${node_pods}\"
  nodeInfo:
    kubeletVersion: ${K8S_VERSION}
    operatingSystem: linux
    architecture: amd64
"
done
kubectl_admin apply -f - >/dev/null <<<"${nodes_manifest}"
# A node left lost by an interrupted test would never be Ready again: bring them all back.
kubectl_admin label nodes -l type=kwok kubelet.petset.dev/lost- >/dev/null

wait_for kwok "${node_count} Ready, untainted fake nodes" nodes_ready
# kube-apiserver reaches a node's kubelet (kwok's server: exec) at its InternalIP and
# daemonEndpoints port. kwok writes them when a node becomes Ready; nodes kept from an
# earlier start of this cluster still show the old ones, so they are set here for all.
for (( i = 0; i < node_count; i++ )); do
  kubectl_admin patch node "kwok-node-${i}" --subresource=status --type=merge -p \
    "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"kwok-node-${i}\"}],\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":${KWOK_PORT}}},\"capacity\":{\"pods\":\"${node_pods}\"},\"allocatable\":{\"pods\":\"${node_pods}\"}}}" >/dev/null
done
wait_for kube-controller-manager "the default service account" default_sa_exists

echo "${fingerprint}" >"${state_dir}/fingerprint"
cat >"${state_dir}/cluster.env" <<ENV
# Written by test/cluster/up.sh; source it to talk to the test cluster.
PETSET_CLUSTER_DIR=${state_dir}
PETSET_KUBECONFIG=${state_dir}/kubeconfig
PETSET_CONTROLLER_KUBECONFIG=${state_dir}/kubeconfig-controller
PETSET_APISERVER_URL=https://127.0.0.1:${APISERVER_PORT}
PETSET_AUDIT_LOG=${state_dir}/audit/audit.log
PETSET_K8S_VERSION=${K8S_VERSION}
ENV

print_result
