#!/usr/bin/env bash
# Regenerates tests/golden/node-cases-exact.txt, the golden node set (tools/golden/README.md,
# "Node cases"), with the REFERENCE engine, then shows which lines changed. Run it after a change
# that is meant to change exact results or what runs in exact mode (an operator added, or made
# exact: its cases go from the marker to a hash), and commit the file with that change.
#   tools/golden/update_node_cases.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build="${1:-build/release}"
file=tests/golden/node-cases-exact.txt
node_dir="${ONEMODEL_BACKEND_TEST_DIR:-$root/../shared/onnx-backend-test}/node"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONEMODEL_WERROR=ON >/dev/null
fi
ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" golden
"$build/golden" --engine reference --node-cases "$node_dir" --write "$file"
# Which cases changed (marker <-> hash, or a new hash); empty when none did.
git --no-pager diff --stat -- "$file"
git --no-pager diff -U0 -- "$file" | grep '^[-+]case/' || true
