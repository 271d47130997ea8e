#!/usr/bin/env bash
# End-to-end smoke test of the test cluster: starts it (up.sh, idempotent) and checks
# what petset's tests rely on: readiness and version, kwok pod behaviours (Ready,
# :broken, :slow, graceful deletion), PVC binding and release, RBAC of the controller
# user, namespace deletion. Leaves the cluster running. Exit code 0 when all pass.
# Env: as up.sh; PETSET_SMOKE_NO_UP=1 uses a running cluster without calling up.sh.
set -euo pipefail

# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

kubectl_bin="${KUBECTL:-kubectl}"
if [[ "${PETSET_SMOKE_NO_UP:-0}" != "1" ]]; then
  bash "${cluster_script_dir}/up.sh" >/dev/null
fi
admin="${state_dir}/kubeconfig"
controller="${state_dir}/kubeconfig-controller"
[[ -f "${admin}" && -f "${controller}" ]] || die "no kubeconfig in ${state_dir}; run up.sh"

k() { "${kubectl_bin}" --kubeconfig "${admin}" "$@"; }
kc() { "${kubectl_bin}" --kubeconfig "${controller}" "$@"; }

passed=0
failed=0
check() {
  local what="$1"
  shift
  if "$@" >/dev/null 2>&1; then
    passed=$(( passed + 1 ))
    echo "ok   ${what}"
  else
    failed=$(( failed + 1 ))
    echo "FAIL ${what}"
  fi
}
# eventually SECONDS COMMAND...: COMMAND succeeds within SECONDS.
eventually() {
  local deadline=$(( SECONDS + $1 ))
  shift
  until "$@"; do
    (( SECONDS < deadline )) || return 1
    sleep 0.25
  done
}
jp() { k -n "${ns}" get "$1" -o "jsonpath=$2"; }

ns="smoke-${RANDOM}${RANDOM}"
cleanup() { k delete namespace "${ns}" --ignore-not-found --wait=false >/dev/null 2>&1 || true; }
trap cleanup EXIT

readyz_ok() { [[ "$(k get --raw /readyz)" == "ok" ]]; }
version_ok() { k get --raw /version | grep -q "\"gitVersion\": \"${K8S_VERSION}\""; }
nodes_ok() { [[ "$(k get nodes -l type=kwok -o name | wc -l)" -ge 3 ]]; }
check "apiserver /readyz" readyz_ok
check "apiserver /version is ${K8S_VERSION}" version_ok
check "3 fake nodes" nodes_ok

k create namespace "${ns}" >/dev/null
sa_ok() { k -n "${ns}" get serviceaccount default; }
check "default service account created" eventually 30 sa_ok

start=${SECONDS}
k -n "${ns}" run good --image=nginx:1.27 >/dev/null
k -n "${ns}" run broken --image=nginx:broken >/dev/null
k -n "${ns}" run slow --image=nginx:slow >/dev/null
check "nginx:1.27 pod becomes Ready" k -n "${ns}" wait --for=condition=Ready pod/good --timeout=30s
echo "     (Ready $(( SECONDS - start ))s after create)"

slow_not_ready_first() { [[ "$(jp pod/slow '{.status.conditions[?(@.type=="Ready")].status}')" == "False" ]]; }
check "nginx:slow pod Running but not Ready at first" eventually 10 slow_not_ready_first
check "nginx:slow pod becomes Ready" k -n "${ns}" wait --for=condition=Ready pod/slow --timeout=30s

broken_waiting() {
  [[ "$(jp pod/broken '{.status.phase} {.status.containerStatuses[0].state.waiting.reason}')" == "Running CrashLoopBackOff" ]]
}
broken_restarts() { [[ "$(jp pod/broken '{.status.containerStatuses[0].restartCount}')" -ge 2 ]]; }
broken_not_ready() { [[ "$(jp pod/broken '{.status.conditions[?(@.type=="Ready")].status}')" == "False" ]]; }
check "nginx:broken pod Running in CrashLoopBackOff" eventually 10 broken_waiting
check "nginx:broken restartCount grows" eventually 40 broken_restarts
check "nginx:broken pod never Ready" broken_not_ready

fix_image() { k -n "${ns}" set image pod/broken broken=nginx:1.27; }
check "in-place image fix of the broken pod" fix_image
check "fixed pod becomes Ready" k -n "${ns}" wait --for=condition=Ready pod/broken --timeout=30s

k -n "${ns}" apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
EOF
check "PVC binds (storage class standard)" k -n "${ns}" wait --for=jsonpath='{.status.phase}'=Bound pvc/data --timeout=30s
pv="$(jp pvc/data '{.spec.volumeName}' 2>/dev/null || true)"

check "graceful pod deletion completes" k -n "${ns}" delete pod good --timeout=30s
gone() { ! k -n "${ns}" get pod good; }
check "deleted pod is gone" gone

check "PVC deletion completes" k -n "${ns}" delete pvc data --timeout=30s
pv_gone() { [[ -n "${pv}" ]] && ! k get pv "${pv}"; }
check "released PV is deleted" eventually 30 pv_gone

can() { [[ "$(kc auth can-i "$@" 2>/dev/null)" == "yes" ]]; }
cannot() { ! can "$@"; }
# ssar GROUP RESOURCE SUBRESOURCE VERB: a raw SelfSubjectAccessReview (kubectl auth can-i
# resolves resource names through discovery, which fails while the CRDs are not installed).
ssar() {
  kc create --validate=false -o jsonpath='{.status.allowed}' -f - <<EOF | grep -qx true
apiVersion: authorization.k8s.io/v1
kind: SelfSubjectAccessReview
spec:
  resourceAttributes: {group: "$1", resource: "$2", subresource: "$3", verb: "$4", namespace: "${ns}"}
EOF
}
check "controller can list pods" can list pods -n "${ns}"
check "controller can create pods" can create pods -n "${ns}"
check "controller can patch persistentvolumeclaims" can patch persistentvolumeclaims -n "${ns}"
check "controller can create events" can create events -n "${ns}"
check "controller can update leases" can update leases.coordination.k8s.io -n "${ns}"
check "controller can create petsetversions" ssar petset.dev petsetversions "" create
check "controller can patch petsets/status" ssar petset.dev petsets status patch
check "controller can update petsets/scale" ssar petset.dev petsets scale update
check "controller cannot delete namespaces" cannot delete namespaces
nossar() { ! ssar "$@"; }
check "controller cannot create petsets" nossar petset.dev petsets "" create
check "controller cannot read secrets" cannot get secrets -n "${ns}"
impersonated() { [[ "$(k auth can-i list pods --as=petset-controller -n "${ns}")" == "yes" ]]; }
check "admin: auth can-i --as=petset-controller" impersonated

trap - EXIT
check "namespace deletion completes" k delete namespace "${ns}" --timeout=60s

echo "smoke: ${passed} passed, ${failed} failed"
(( failed == 0 ))
