#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3/cmd/helm) from Go modules into the cache, as build.sh builds
# the control plane: the chart tests (test/integration/helm.test.ts) use it.
# Output: ${PETSET_CACHE:-$HOME/.cache/petset}/helm-<HELM_VERSION>/bin/helm
# Idempotent: does nothing when the binary exists and its stamp matches this script.
# Usage: build-helm.sh          build if needed, print the binary's path last
#        build-helm.sh --path   print the binary's path only (no build; it may be absent)
# Env: PETSET_CACHE (cache root), PETSET_BUILD_NICE (nice level, default 10).
set -euo pipefail

# The helm release the chart is tested with (a v3 release the Go module proxy serves).
HELM_VERSION=v3.21.4
# The Kubernetes version helm assumes without a cluster (`helm template`, `helm lint`): helm's
# Makefile derives it from the k8s.io/client-go it builds with (v0.36.x -> 1.36); without it
# helm says v1.20.0 and refuses the chart's kubeVersion.
HELM_K8S_MAJOR=1
HELM_K8S_MINOR=36

cache_root="${PETSET_CACHE:-${HOME}/.cache/petset}"
bin_dir="${cache_root}/helm-${HELM_VERSION}/bin"
helm_bin="${bin_dir}/helm"
stamp_file="${bin_dir}/.stamp"
stamp="$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)"
up_to_date() { [[ -x "${helm_bin}" && -f "${stamp_file}" && "$(cat "${stamp_file}")" == "${stamp}" ]]; }

if [[ "${1:-}" == "--path" ]]; then
  echo "${helm_bin}"
  exit 0
fi

if up_to_date; then
  echo "${helm_bin}"
  exit 0
fi

mkdir -p "${bin_dir}"
# One build at a time per cache dir.
exec 9>"${bin_dir}/.build.lock"
flock 9
if up_to_date; then
  echo "${helm_bin}"
  exit 0
fi

command -v go >/dev/null || { echo "build-helm: go not found in PATH" >&2; exit 1; }
start="$(date +%s)"
echo "build-helm: building helm ${HELM_VERSION} (a few minutes on a cold Go cache)" >&2
# Built into a temporary name, renamed when complete: an interrupted build leaves no binary.
CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-buildvcs=false" GOBIN="${bin_dir}/.tmp" \
  nice -n "${PETSET_BUILD_NICE:-10}" \
  go install -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${HELM_K8S_MAJOR} \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${HELM_K8S_MINOR} \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${HELM_K8S_MAJOR} \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${HELM_K8S_MINOR}" \
  "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
mv "${bin_dir}/.tmp/helm" "${helm_bin}"
rmdir "${bin_dir}/.tmp"
echo "${stamp}" >"${stamp_file}"
echo "build-helm: built in $(( $(date +%s) - start ))s" >&2
echo "${helm_bin}"
