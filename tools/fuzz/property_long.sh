#!/usr/bin/env bash
# Runs the RapidCheck properties of the unit tests (every tests/unit/*_test.cpp that calls
# rc::check: the differential generators of Conv, the element-wise, normalisation, attention and
# pooling overrides, the passes, the engine property, the slab allocator) with many more cases
# than CI's default 100 a property, under several seeds, in the Checked tree tools/test.sh builds.
# CI's runs draw fresh cases each time, so a shape defect is found there only by chance (session
# 38: a patch embedding with an end pad, one case in a few hundred); this is the long run, by
# hand, one program at a time (the machine's cores are shared).
#   tools/fuzz/property_long.sh [CASES] [SEEDS] [TEST...]   default 2000 cases, 3 seeds, every program
# BUILD overrides the build folder (default build/checked). Stops at the first failure and prints
# its RC_PARAMS, which replays it: RC_PARAMS="reproduce=..." BUILD/<test> --gtest_filter=<name>.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build/checked}"
cases=2000
seeds=3
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then cases="$1"; shift; fi
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then seeds="$1"; shift; fi
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  while IFS= read -r f; do tests+=("$(basename "$f" .cpp)"); done < <(grep -l "rc::check" "$root"/tests/unit/*_test.cpp)
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Checked -DCMAKE_CXX_COMPILER=g++ \
        -DONEMODEL_WERROR=ON >/dev/null
fi
ninja -C "$build" -j 2 "${tests[@]}"
log="$build/property-long"
mkdir -p "$log"
for t in "${tests[@]}"; do
  for ((i = 0; i < seeds; ++i)); do
    # A seed per run that a reader can repeat: the time, this test, this round.
    seed="$(( $(date +%s) % 1000000 + i ))"
    out="$log/$t-$seed.txt"
    start=$SECONDS
    if RC_PARAMS="max_success=$cases seed=$seed" "$build/$t" >"$out" 2>&1; then
      echo "property_long: $t seed $seed: $cases cases a property passed ($((SECONDS - start)) s)"
    else
      echo "property_long: $t seed $seed FAILED ($((SECONDS - start)) s); output in $out:" >&2
      grep -E "Falsifiable|reproduce|Failure|FAILED" "$out" | head -20 >&2
      exit 1
    fi
  done
done
echo "property_long: every property passed: ${#tests[@]} programs x $seeds seeds x $cases cases"
