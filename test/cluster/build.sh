#!/usr/bin/env bash
# Builds the binaries of the real-cluster test control plane from Go modules:
#   etcd (go.etcd.io/etcd/server/v3), kube-apiserver, kube-controller-manager,
#   kube-scheduler (k8s.io/kubernetes) and kwok (sigs.k8s.io/kwok).
# Output: ${PETSET_CACHE:-$HOME/.cache/petset}/k8s-<K8S_VERSION>/bin/
# Idempotent: does nothing when the binaries exist and the stamp matches versions.env.
# Env: PETSET_CACHE (cache root), PETSET_BUILD_FORCE=1 (rebuild anyway).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "${script_dir}/versions.env"

cache_root="${PETSET_CACHE:-${HOME}/.cache/petset}"
out_dir="${cache_root}/k8s-${K8S_VERSION}"
bin_dir="${out_dir}/bin"
src_dir="${out_dir}/src"
log_dir="${out_dir}/logs"
stamp_file="${bin_dir}/.stamp"
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# The stamp covers the pinned versions and the inputs that shape the binaries.
stamp="$(cat "${script_dir}/versions.env" "${script_dir}/etcd-wrapper/main.go" \
  <(sed -n '/^# BUILD-RECIPE-BEGIN/,/^# BUILD-RECIPE-END/p' "${BASH_SOURCE[0]}") \
  | sha256sum | cut -d' ' -f1)"

all_present() {
  local b
  for b in "${binaries[@]}"; do
    [[ -x "${bin_dir}/${b}" ]] || return 1
  done
}

up_to_date() {
  [[ "${PETSET_BUILD_FORCE:-0}" != "1" ]] && all_present \
    && [[ -f "${stamp_file}" ]] && [[ "$(cat "${stamp_file}")" == "${stamp}" ]]
}

if up_to_date; then
  echo "build: binaries up to date in ${bin_dir}"
  exit 0
fi

# One build at a time per cache dir (parallel CI clones share it).
mkdir -p "${out_dir}"
exec 9>"${out_dir}/.build.lock"
if ! flock -n 9; then
  echo "build: waiting for another build.sh to finish (${out_dir}/.build.lock)"
  flock 9
  if up_to_date; then
    echo "build: binaries up to date in ${bin_dir} (built by the other build.sh)"
    exit 0
  fi
fi

command -v go >/dev/null || { echo "build: go not found in PATH" >&2; exit 1; }
mkdir -p "${bin_dir}" "${src_dir}" "${log_dir}"
rm -f "${stamp_file}"

# BUILD-RECIPE-BEGIN
export CGO_ENABLED=0
export GOTOOLCHAIN=local
export GOFLAGS="-mod=mod -buildvcs=false"
nice_cmd=(nice -n "${PETSET_BUILD_NICE:-10}")

log() { echo "build: $(date +%H:%M:%S) $*"; }

build_etcd() {
  local dir="${src_dir}/etcd"
  mkdir -p "${dir}"
  cp "${script_dir}/etcd-wrapper/main.go" "${dir}/main.go"
  cat >"${dir}/go.mod" <<MOD
module petset.local/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
MOD
  rm -f "${dir}/go.sum"
  (
    cd "${dir}"
    "${nice_cmd[@]}" go mod tidy
    "${nice_cmd[@]}" go build -trimpath -ldflags "-s -w" -o "${bin_dir}/etcd" .
  )
}

build_kubernetes() {
  local dir="${src_dir}/kubernetes"
  local k8s_gomod
  mkdir -p "${dir}"
  k8s_gomod="$(go env GOMODCACHE)/k8s.io/kubernetes@${K8S_VERSION}/go.mod"
  if [[ ! -f "${k8s_gomod}" ]]; then
    go mod download "k8s.io/kubernetes@${K8S_VERSION}"
  fi
  # k8s.io/kubernetes replaces its staging modules with ./staging/src/...; a consumer
  # must pin each of them to the released version instead.
  {
    echo "module petset.local/kubernetes"
    echo
    echo "go 1.24.0"
    echo
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/.*#\t\1 => \1 '"${K8S_STAGING_VERSION}"'#p' "${k8s_gomod}"
    echo ")"
  } >"${dir}/go.mod"
  # An (empty) package keeps the module valid; the commands are built from the dependency.
  cat >"${dir}/doc.go" <<'GO'
// Package kubernetes only anchors the module that builds the upstream commands.
package kubernetes
GO
  rm -f "${dir}/go.sum"
  local minor="${K8S_VERSION#v}"
  local major="${minor%%.*}"
  minor="${minor#*.}"
  minor="${minor%%.*}"
  local build_date="2000-01-01T00:00:00Z"
  local ldflags="-s -w"
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X ${pkg}.gitVersion=${K8S_VERSION}"
    ldflags+=" -X ${pkg}.gitMajor=${major}"
    ldflags+=" -X ${pkg}.gitMinor=${minor}"
    ldflags+=" -X ${pkg}.gitTreeState=clean"
    ldflags+=" -X ${pkg}.buildDate=${build_date}"
  done
  (
    cd "${dir}"
    "${nice_cmd[@]}" go build -trimpath -ldflags "${ldflags}" -o "${bin_dir}/" \
      k8s.io/kubernetes/cmd/kube-apiserver \
      k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler
  )
}

build_kwok() {
  GOBIN="${bin_dir}" GOFLAGS="-buildvcs=false" "${nice_cmd[@]}" \
    go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
}
# BUILD-RECIPE-END

start="$(date +%s)"
for step in etcd kwok kubernetes; do
  log "building ${step} (log: ${log_dir}/${step}.log)"
  step_start="$(date +%s)"
  if ! "build_${step}" >"${log_dir}/${step}.log" 2>&1; then
    echo "build: ${step} FAILED; last lines of ${log_dir}/${step}.log:" >&2
    tail -n 30 "${log_dir}/${step}.log" >&2
    exit 1
  fi
  log "${step} done in $(( $(date +%s) - step_start ))s"
done

all_present || { echo "build: some binaries are missing in ${bin_dir}" >&2; exit 1; }
echo "${stamp}" >"${stamp_file}"
log "all binaries built in $(( $(date +%s) - start ))s: ${bin_dir}"
ls -l "${bin_dir}"
