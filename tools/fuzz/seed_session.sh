#!/usr/bin/env bash
# Seeds the session fuzzer's corpus with a spread of the backend test's node models (at most 400,
# each under 64 KiB), the bundled samples and tests/data models, and OneModel conversions of a
# few of them (`onemodel convert`, the CLI of the same build, when it is there).
#   tools/fuzz/seed_session.sh BUILD_DIR CORPUS_DIR
set -euo pipefail
source "$(dirname "$0")/seed_common.sh"
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$1"; corpus="$2"
data="$(backend_dir "$build")"
mkdir -p "$corpus"
n=0
for f in "$root"/models/samples/*.onnx "$root"/tests/data/passes/*.onnx; do
  [ -f "$f" ] || continue
  cp "$f" "$corpus/sample_$(basename "$f")"; n=$((n + 1))
done
if [ -d "$data" ]; then
  while IFS= read -r f; do
    cp "$f" "$corpus/$(seed_name "$f")"; n=$((n + 1))
  done < <(find "$data/node" -name model.onnx -size -64k | sort | spread 400)
else
  echo "seed_session: no backend test data at $data" >&2
fi
cli="$build/onemodel"
if [ -x "$cli" ]; then
  for f in "$corpus"/sample_*.onnx; do
    "$cli" convert "$f" "${f%.onnx}.onemodel" >/dev/null 2>&1 && n=$((n + 1)) || rm -f "${f%.onnx}.onemodel"
  done
fi
echo "seed_session: $n models"
