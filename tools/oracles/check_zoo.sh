#!/usr/bin/env bash
# The model-zoo gate (issue 15; docs/reference-models.md "Model zoo (issue 15)"): `onemodel check`
# on the reference directories of tools/models.json's "zoo" group (tools/oracles/export_zoo.py,
# make_reference.py), optimized engine, fast and exact mode, 1 and 2 threads, each run twice:
# scaled error <= 1e-4 against ONNX Runtime and output hashes equal across thread counts and runs.
#   tools/oracles/check_zoo.sh ONEMODEL_BINARY [--all | --full] [extra check options]
#   (no flag)  the CI subset: batch 1 of CI_MODELS below, cheap models (a few seconds each) that
#              pass; none may be blocked. CTest model_check_zoo runs this.
#   --all      batch 1 of every zoo model;  --full  every batch of every zoo model.
#              One `onemodel check` per model, so one failure hides nothing; then a summary line
#              per model (pass, blocked with the session's reason, or FAIL with the check's
#              reasons). Exit 1 when any model fails; blocked models are listed, not failed (the
#              page records which are and why).
# Exit 77 (CTest's skip code) when the zoo's reference data is absent: skipped, never passed.
set -euo pipefail
binary="${1:?usage: check_zoo.sh ONEMODEL_BINARY [--all|--full] [check options]}"
shift
scope=ci
case "${1:-}" in
  --all) scope=all; shift ;;
  --full) scope=full; shift ;;
esac
# The CI subset: a GRU and a bidirectional LSTM stack, the GPT-2 step on a key/value cache and
# SqueezeNet (each under about two seconds for the eight sessions on this machine).
CI_MODELS=(gru lstm-bi gpt2-past squeezenet)
home="${ONEMODEL_HOME:-$HOME/onemodel}"
group="$home/reference/$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)/zoo"
if [ ! -d "$group" ]; then
  echo "check_zoo: SKIPPED: no reference data in $group (run tools/oracles/setup.sh --models)"
  exit 77
fi

if [ "$scope" = ci ]; then
  dirs=()
  for model in "${CI_MODELS[@]}"; do
    [ -e "$group/$model/fp32/b1/index.json" ] && dirs+=("$group/$model/fp32/b1")
  done
  if [ ${#dirs[@]} -ne ${#CI_MODELS[@]} ]; then
    echo "check_zoo: SKIPPED: $group lacks batch 1 of some of ${CI_MODELS[*]} (run tools/oracles/setup.sh --models)"
    exit 77
  fi
  "$binary" check "${dirs[@]}" "$@" | grep -v '^hashes'
  echo "check_zoo: PASS (CI subset: ${CI_MODELS[*]}, batch 1)"
  exit 0
fi

models=()
for dir in "$group"/*/; do
  [ -d "$dir/fp32" ] && models+=("$(basename "$dir")")
done
if [ ${#models[@]} -eq 0 ]; then
  echo "check_zoo: SKIPPED: $group holds no reference directories"
  exit 77
fi
summary=()
failed=0
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for model in "${models[@]}"; do
  dirs=()
  for index in "$group/$model"/fp32/b*/index.json; do
    [ -e "$index" ] || continue
    dir="$(dirname "$index")"
    if [ "$scope" = all ] && [ "$(basename "$dir")" != b1 ]; then continue; fi
    dirs+=("$dir")
  done
  [ ${#dirs[@]} -gt 0 ] || continue
  status=0
  start=$SECONDS
  "$binary" check "${dirs[@]}" --allow-blocked "$@" > "$out" 2>&1 || status=$?
  grep -v '^hashes' "$out" || true
  seconds=$((SECONDS - start))
  blocked="$(awk -F'\t' '$1 == "blocked" { print $4 " " $5 }' "$out" | sort -u | paste -sd ';' -)"
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    summary+=("$model	FAIL	$(tail -n 1 "$out")${blocked:+	blocked: $blocked}	${seconds}s")
  elif [ -n "$blocked" ]; then
    summary+=("$model	blocked	$blocked	${seconds}s")
  else
    summary+=("$model	pass		${seconds}s")
  fi
done
echo "check_zoo: summary (model, verdict, detail, seconds)"
printf '%s\n' "${summary[@]}"
if [ "$failed" -gt 0 ]; then
  echo "check_zoo: FAIL ($failed of ${#models[@]} models)"
  exit 1
fi
echo "check_zoo: PASS (${#models[@]} models; blocked ones listed above)"
