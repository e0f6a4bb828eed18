#!/usr/bin/env bash
# The whole test suite: a Checked build with g++ (warnings are errors) running every CTest label
# but fuzz-smoke, then a Checked clang build (warnings are errors) that builds the libFuzzer
# targets and runs each for ONEMODEL_FUZZ_SECONDS (default 60).
#   tools/test.sh              everything
#   tools/test.sh -L unit      only the given ctest selection, g++ build only
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
fuzz_seconds="${ONEMODEL_FUZZ_SECONDS:-60}"

cmake -S . -B build/checked -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=g++ \
      -DONEMODEL_WERROR=ON >/dev/null
ninja -C build/checked -j "$jobs"
if [ $# -gt 0 ]; then
  ctest --test-dir build/checked -j "$jobs" --output-on-failure "$@"
  exit $?
fi
ctest --test-dir build/checked -j "$jobs" --output-on-failure -LE fuzz-smoke

cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=clang++ \
      -DONEMODEL_WERROR=ON -DONEMODEL_FUZZ=ON -DONEMODEL_FUZZ_SECONDS="$fuzz_seconds" >/dev/null
ninja -C build/fuzz -j "$jobs"
# Fuzzers share the two cores: run them one after another so each gets its stated time.
ctest --test-dir build/fuzz -j 1 --output-on-failure -L fuzz-smoke

# ---- cross-platform golden hashes (owner: cross) ----
# Exact-mode bits on aarch64 (qemu, NEON and scalar, 1 and 2 threads) and WebAssembly (node,
# SIMD128 and scalar) against tests/golden/golden-exact.txt; reduced set (golden --quick).
# Each script builds its own tree (build/cross-aarch64, build/cross-wasm); --full for every graph.
tools/cross/aarch64.sh
tools/cross/wasm.sh
