#!/usr/bin/env bash
# The Node release the controller image runs (Dockerfile: node:24.22.3-bookworm-slim), for
# benchmarks that measure the controller "as deployed" on a machine whose own Node is older
# (bench/run.ts --controller-node). Fetched once from the npm registry, where the Node project's
# Linux builds are published as node-linux-<arch> (`npm pack` checks the tarball against the
# registry's integrity hash), into the ignored cache beside the Go-built tools.
# Output: ${PETSET_CACHE:-$HOME/.cache/petset}/node-v<IMAGE_NODE_VERSION>/bin/node
# Usage: image-node.sh          fetch if needed, print the binary's path last
#        image-node.sh --path   print the binary's path only (it may be absent)
set -euo pipefail

# The Dockerfile's release (its FROM lines): change both together.
IMAGE_NODE_VERSION=24.22.3

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "image-node.sh: no Node ${IMAGE_NODE_VERSION} build for $(uname -m)" >&2; exit 1 ;;
esac
cache_root="${PETSET_CACHE:-${HOME}/.cache/petset}"
out_dir="${cache_root}/node-v${IMAGE_NODE_VERSION}"
node_bin="${out_dir}/bin/node"

if [[ "${1:-}" == "--path" ]]; then
  echo "${node_bin}"
  exit 0
fi
if [[ -x "${node_bin}" ]] && "${node_bin}" --version >/dev/null 2>&1; then
  echo "${node_bin}"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/petset-image-node-XXXXXX")"
trap 'rm -rf "${work}"' EXIT
(cd "${work}" && npm pack --silent "node-linux-${arch}@${IMAGE_NODE_VERSION}" >/dev/null)
tar -xzf "${work}/node-linux-${arch}-${IMAGE_NODE_VERSION}.tgz" -C "${work}"
mkdir -p "${out_dir}"
rm -rf "${out_dir:?}"/*
cp -a "${work}/package/." "${out_dir}/"
got="$("${node_bin}" --version)"
if [[ "${got}" != "v${IMAGE_NODE_VERSION}" ]]; then
  echo "image-node.sh: expected v${IMAGE_NODE_VERSION}, the binary says ${got}" >&2
  exit 1
fi
echo "${node_bin}"
