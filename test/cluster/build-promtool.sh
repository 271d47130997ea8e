#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool) from Go modules into the
# cache, for the alert rules' unit tests (test/integration/alert-rules.test.ts). Prometheus's
# go.mod has replace/exclude directives, so `go install ...@version` refuses it: a tiny wrapper
# module requires it and builds the command from the dependency (as build.sh does for etcd).
# Output: ${PETSET_CACHE:-$HOME/.cache/petset}/promtool-<PROMETHEUS_VERSION>/bin/promtool
# Idempotent: does nothing when the binary exists and its stamp matches this script.
# Usage: build-promtool.sh          build if needed, print the binary's path last
#        build-promtool.sh --path   print the binary's path only (no build; it may be absent)
# Env: PETSET_CACHE (cache root), PETSET_BUILD_NICE (nice level, default 10).
set -euo pipefail

# Prometheus 3.x as a Go module (v0.3xx.y); a version the Go module proxy serves.
PROMETHEUS_VERSION=v0.316.0

cache_root="${PETSET_CACHE:-${HOME}/.cache/petset}"
out_dir="${cache_root}/promtool-${PROMETHEUS_VERSION}"
bin_dir="${out_dir}/bin"
src_dir="${out_dir}/src"
promtool_bin="${bin_dir}/promtool"
stamp_file="${bin_dir}/.stamp"
stamp="$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)"
up_to_date() { [[ -x "${promtool_bin}" && -f "${stamp_file}" && "$(cat "${stamp_file}")" == "${stamp}" ]]; }

if [[ "${1:-}" == "--path" ]]; then
  echo "${promtool_bin}"
  exit 0
fi
if up_to_date; then
  echo "${promtool_bin}"
  exit 0
fi

mkdir -p "${bin_dir}" "${src_dir}"
exec 9>"${bin_dir}/.build.lock"
flock 9
if up_to_date; then
  echo "${promtool_bin}"
  exit 0
fi

command -v go >/dev/null || { echo "build-promtool: go not found in PATH" >&2; exit 1; }
start="$(date +%s)"
echo "build-promtool: building promtool (prometheus ${PROMETHEUS_VERSION}; long on a cold Go cache)" >&2
cat >"${src_dir}/go.mod" <<MOD
module petset.local/promtool

go 1.26.0
MOD
cat >"${src_dir}/doc.go" <<'GO'
// Package promtool only anchors the module that builds Prometheus's promtool.
package promtool
GO
rm -f "${src_dir}/go.sum"
(
  cd "${src_dir}"
  export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false"
  nice -n "${PETSET_BUILD_NICE:-10}" go get "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}"
  nice -n "${PETSET_BUILD_NICE:-10}" go build -trimpath -ldflags "-s -w" -o "${bin_dir}/.promtool.tmp" \
    github.com/prometheus/prometheus/cmd/promtool
) >&2
mv "${bin_dir}/.promtool.tmp" "${promtool_bin}"
echo "${stamp}" >"${stamp_file}"
echo "build-promtool: built in $(( $(date +%s) - start ))s" >&2
echo "${promtool_bin}"
