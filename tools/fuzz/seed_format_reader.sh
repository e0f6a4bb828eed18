#!/usr/bin/env bash
# Seeds the format_reader corpus with OneModel files converted (`onemodel convert`, the CLI of
# the same build) from a spread of the backend test's model.onnx files (at most 150, each
# under 64 KiB). Without the CLI only the committed seeds in fuzz/corpus/format_reader are used.
#   tools/fuzz/seed_format_reader.sh BUILD_DIR CORPUS_DIR
set -euo pipefail
source "$(dirname "$0")/seed_common.sh"
build="$1"; corpus="$2"
data="$(backend_dir "$build")"
cli="$build/onemodel"
[ -x "$cli" ] || { echo "seed_format_reader: no $cli; committed seeds only" >&2; exit 0; }
[ -d "$data" ] || { echo "seed_format_reader: no backend test data at $data" >&2; exit 0; }
mkdir -p "$corpus"
n=0
while IFS= read -r f; do
  out="$corpus/$(seed_name "$(dirname "$f")").onemodel"
  # A model the converter refuses is simply not a seed; the onnx_reader fuzzer covers refusals.
  if "$cli" convert "$f" "$out" >/dev/null 2>&1; then n=$((n + 1)); else rm -f "$out"; fi
done < <(find "$data" -name model.onnx -size -64k | sort | spread 150)
echo "seed_format_reader: $n converted models"
