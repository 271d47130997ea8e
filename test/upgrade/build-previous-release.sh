#!/usr/bin/env bash
# Builds the previous release (test/upgrade/previous-release.env) into
# ~/.cache/petset/releases/<sha> (PETSET_RELEASES_DIR overrides), once per sha, and prints the
# path of its CLI (dist/src/cli/petset.js). Safe to run from several processes at once (a lock).
#   git archive <sha> -> a temporary folder; node_modules: the checkout's own when package-lock.json
#   is the same, else npm ci --offline; tsc -p tsconfig.build.json; then renamed into place.
# Exit 3: it cannot be built here (no git history with that commit, npm ci --offline failed);
# the message says why.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=/dev/null
source "$here/previous-release.env"
sha="$PREVIOUS_RELEASE"
root="${PETSET_RELEASES_DIR:-$HOME/.cache/petset/releases}"
out="$root/$sha"
cli="$out/dist/src/cli/petset.js"
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
# A build that borrowed a checkout's node_modules borrows this checkout's (the one it was built
# from may be gone: CI clones afresh), and is stale once the lock moved on.
if [ -f "$out/.built" ]; then
  if [ ! -L "$out/node_modules" ]; then echo "$cli"; exit 0; fi
  if cmp -s "$out/package-lock.json" "$repo/package-lock.json" && [ -d "$repo/node_modules" ]; then
    ln -sfn "$repo/node_modules" "$out/node_modules"
    echo "$cli"
    exit 0
  fi
fi
if ! git -C "$repo" cat-file -e "$sha^{commit}" 2>/dev/null; then
  echo "cannot build the previous release: commit $sha is not in this checkout's history (a shallow clone? git fetch --unshallow)" >&2
  exit 3
fi
tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git -C "$repo" archive "$sha" | tar -x -C "$tmp"
if cmp -s "$tmp/package-lock.json" "$repo/package-lock.json" && [ -d "$repo/node_modules" ]; then
  ln -s "$repo/node_modules" "$tmp/node_modules"
elif ! (cd "$tmp" && npm ci --offline --no-audit --no-fund >"$tmp/npm-ci.log" 2>&1); then
  echo "cannot build the previous release: its package-lock.json differs and npm ci --offline failed:" >&2
  tail -5 "$tmp/npm-ci.log" >&2
  exit 3
fi
(cd "$tmp" && node node_modules/typescript/bin/tsc -p tsconfig.build.json)
# node_modules was the checkout's: keep pointing at it by absolute path after the rename.
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
touch "$out/.built"
echo "$cli"
