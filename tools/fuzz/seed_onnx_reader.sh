#!/usr/bin/env bash
# Seeds the onnx_reader corpus with a spread of the backend test's model.onnx files (at most
# 300, each under 64 KiB).   tools/fuzz/seed_onnx_reader.sh BUILD_DIR CORPUS_DIR
set -euo pipefail
source "$(dirname "$0")/seed_common.sh"
build="$1"; corpus="$2"
data="$(backend_dir "$build")"
[ -d "$data" ] || { echo "seed_onnx_reader: no backend test data at $data" >&2; exit 0; }
mkdir -p "$corpus"
n=0
while IFS= read -r f; do
  cp "$f" "$corpus/$(seed_name "$f")"; n=$((n + 1))
done < <(find "$data" -name model.onnx -size -64k | sort | spread 300)
echo "seed_onnx_reader: $n models"
