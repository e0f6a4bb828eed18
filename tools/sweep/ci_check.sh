#!/usr/bin/env bash
# The Ray step of tools/test.sh (docs/sweeps.md): on a spread subset of the backend-test cases,
# every run of the conformance sweep (both engines and modes, the twin gate on each kernel path)
# once as one runner process per run and once sharded over a local Ray instance with two workers;
# the merged TSVs and summary must be byte-identical to the single-process ones. Then the Ray
# Data batch-inference example, when the onemodel Python package is in this checkout.
#   tools/sweep/ci_check.sh BUILD_DIR [DATA_DIR]
# BUILD_DIR holds onemodel and golden. ONEMODEL_RAY_SWEEP_EVERY (default 8) picks every N-th case.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: ci_check.sh BUILD_DIR [DATA_DIR]}" && pwd)"
data="${2:-$root/../shared/onnx-backend-test}"
every="${ONEMODEL_RAY_SWEEP_EVERY:-8}"
py="$root/build/venv-ray/bin/python"
if [ ! -x "$py" ]; then
  echo "ci_check: $py is missing: run tools/setup.sh --ray first" >&2
  exit 1
fi
out="$build/ray-sweep"
rm -rf "$out"
# The sweep's own unit tests first (standard library only).
"$py" "$root/tools/sweep/sweep_merge_test.py"

common=(--cli "$build/onemodel" --golden "$build/golden" --data "$data" --every "$every")
single_status=0
"$py" "$root/tools/sweep/ray_sweep.py" "${common[@]}" --single --out "$out/single" || single_status=$?
ray_status=0
# Five shards on two workers: uneven shards, more shards than workers, so the merge is exercised.
"$py" "$root/tools/sweep/ray_sweep.py" "${common[@]}" --shards 5 --num-cpus 2 --out "$out/ray" || ray_status=$?
if [ "$single_status" -gt 1 ] || [ "$ray_status" != "$single_status" ]; then
  echo "ci_check: exit status single $single_status, Ray $ray_status (both must be 0 or both 1)" >&2
  exit 1
fi
if ! diff -r "$out/single" "$out/ray"; then
  echo "ci_check: the merged Ray sweep differs from the single-process sweep (above)" >&2
  exit 1
fi
runs="$(grep -c '^== ' "$out/single/summary.txt")"
echo "ci_check: sharded Ray sweep identical to the single-process sweep ($runs runs, every ${every}th case)"

if [ -f "$root/python/pyproject.toml" ]; then
  # The package under test from this checkout's sources (docs/api.md, Python).
  "$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$root/python"
  "$py" "$root/examples/python/ray_batch_inference.py" --rows 1000 --workers 2 \
        --expected "$root/examples/python/classifier_expected.npy"
  "$py" "$root/examples/python/ray_batch_inference.py" --rows 1000 --workers 2 --mode exact \
        --expected "$root/examples/python/classifier_expected.npy"
else
  echo "ci_check: no python/pyproject.toml in this checkout: the batch-inference example is not run"
fi
