#!/usr/bin/env bash
# Runs the libFuzzer targets for longer than the fuzz-smoke tests, one after another (the
# machine's cores are shared), in the clang fuzz build made by tools/test.sh (build/fuzz).
#   tools/fuzz/fuzz_long.sh [SECONDS] [ENTRY...]     default 600 s each, every fuzz/<entry>_fuzz.cpp
# BUILD overrides the build folder. Stops at the first target with a finding (its inputs are in
# BUILD/fuzz-artifacts/ENTRY/).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build/fuzz}"
seconds=600
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then seconds="$1"; shift; fi
entries=("$@")
if [ ${#entries[@]} -eq 0 ]; then
  for f in "$root"/fuzz/*_fuzz.cpp; do
    name="$(basename "$f" _fuzz.cpp)"; entries+=("$name")
  done
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=clang++ \
        -DONEMODEL_WERROR=ON -DONEMODEL_FUZZ=ON >/dev/null
fi
targets=()
# The CLI converts the seeds of format_reader and json_reader (tools/fuzz/seed_format_reader.sh).
[ -f "$root/tools/cli/main.cpp" ] && targets+=(onemodel_cli)
for e in "${entries[@]}"; do targets+=("${e}_fuzz"); done
ninja -C "$build" -j 2 "${targets[@]}"
for e in "${entries[@]}"; do
  "$root/tools/fuzz/run_fuzz.sh" "$build" "$e" "$seconds"
done
