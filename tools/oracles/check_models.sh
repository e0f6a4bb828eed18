#!/usr/bin/env bash
# The reference-model gate (issue 5; spec-source reference-models.md "Method"): `onemodel check`
# on every model's reference directory made by tools/oracles/make_reference.py, optimized engine,
# fast and exact mode, 1 and 2 threads, each run twice: scaled error <= 1e-4 against ONNX
# Runtime and output hashes equal across thread counts and runs.
#   tools/oracles/check_models.sh ONEMODEL_BINARY [--full] [--models A,B | --except A,B] [extra check options]
# Without --full only batch 1 of each model runs (what CTest runs); --full adds the batch-N rows.
# --models keeps only the named models (reference directory names: resnet50, whisper-enc, ...),
# --except drops them; CTest runs the two Whisper models apart with --repeat 1 (model_check.cmake).
# A model blocked in a mode (an operator without an exact kernel, say) must be listed in
# tests/models/expected-blocked.tsv with its reason; any other blocked model, and a listed one
# that is no longer blocked, fails (so the list cannot go stale).
# Exit 77 (CTest's skip code) when no reference data exists: reported as skipped, never passed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="${1:?usage: check_models.sh ONEMODEL_BINARY [--full] [check options]}"
shift
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
only=""
except=""
case "${1:-}" in
  --models) only=",${2:?--models needs a comma-separated list},"; shift 2 ;;
  --except) except=",${2:?--except needs a comma-separated list},"; shift 2 ;;
esac
home="${ONEMODEL_HOME:-$HOME/onemodel}"
refroot="$home/reference/$(uname -s | tr 'A-Z' 'a-z')-$(uname -m)"
if [ ! -d "$refroot" ]; then
  echo "check_models: SKIPPED: no reference data in $refroot (run tools/setup.sh --oracles)"
  exit 77
fi
dirs=()
for index in "$refroot"/*/fp32/b*/index.json; do
  [ -e "$index" ] || continue
  dir="$(dirname "$index")"
  if [ "$full" = 0 ] && [ "$(basename "$dir")" != "b1" ]; then continue; fi
  name="$(basename "$(dirname "$(dirname "$dir")")")"
  if [ -n "$only" ] && [[ "$only" != *",$name,"* ]]; then continue; fi
  if [ -n "$except" ] && [[ "$except" == *",$name,"* ]]; then continue; fi
  dirs+=("$dir")
done
# A named model without reference data is an error, not a smaller gate.
if [ -n "$only" ]; then
  IFS=',' read -r -a wanted <<< "${only:1:${#only}-2}"
  for name in "${wanted[@]}"; do
    found=0
    for d in "${dirs[@]}"; do
      if [ "$(basename "$(dirname "$(dirname "$d")")")" = "$name" ]; then found=1; fi
    done
    if [ "$found" = 0 ]; then
      echo "check_models: FAIL: --models names $name, which has no reference directory in $refroot"
      exit 1
    fi
  done
fi
if [ ${#dirs[@]} -eq 0 ]; then
  echo "check_models: SKIPPED: $refroot holds no reference directories"
  exit 77
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
"$binary" check "${dirs[@]}" --allow-blocked "$@" | tee "$out" || status=$?
if [ "$status" -ne 0 ]; then
  echo "check_models: FAIL: onemodel check exited $status"
  exit 1
fi
# Compare the blocked rows ("blocked <refdir> <engine> <mode> <reason>") with the expected list,
# keyed by model name and mode.
expected="$root/tests/models/expected-blocked.tsv"
actual_keys="$(awk -F'\t' '$1 == "blocked" { n = split($2, p, "/"); print p[n-2] "\t" $4 "\t" $5 }' "$out" | sort -u)"
# (awk skips the comment lines itself: grep would fail the pipeline on a list with no entries)
expected_keys="$(awk -F'\t' '!/^#/ && NF >= 3 { print $1 "\t" $2 "\t" $3 }' "$expected" | sort -u)"
# Only models whose reference data is present can be expected to be reported.
present="$(for d in "${dirs[@]}"; do basename "$(dirname "$(dirname "$d")")"; done | sort -u)"
expected_keys="$(printf '%s\n' "$expected_keys" | awk -F'\t' 'NR == FNR { have[$1] = 1; next } ($1 in have)' <(printf '%s\n' "$present") - | sort -u)"
if [ "$actual_keys" != "$expected_keys" ]; then
  echo "check_models: FAIL: blocked models differ from tests/models/expected-blocked.tsv"
  echo "  reported: ${actual_keys:-(none)}"
  echo "  expected: ${expected_keys:-(none)}"
  exit 1
fi
echo "check_models: PASS (${#dirs[@]} reference directories; blocked as listed: $(printf '%s' "$actual_keys" | grep -c . || true))"
