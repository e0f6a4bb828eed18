#!/usr/bin/env bash
# Seeds the tensor_reader corpus with a spread of the TensorProto files of the backend test's
# test_data_set_0 directories (input_*.pb, output_*.pb; at most 400, each under 64 KiB).
#   tools/fuzz/seed_tensor_reader.sh BUILD_DIR CORPUS_DIR
set -euo pipefail
source "$(dirname "$0")/seed_common.sh"
build="$1"; corpus="$2"
data="$(backend_dir "$build")"
[ -d "$data" ] || { echo "seed_tensor_reader: no backend test data at $data" >&2; exit 0; }
mkdir -p "$corpus"
n=0
while IFS= read -r f; do
  cp "$f" "$corpus/$(seed_name "$f")"; n=$((n + 1))
done < <(find "$data" -path '*/test_data_set_0/*' \( -name 'input_*.pb' -o -name 'output_*.pb' \) -size -64k |
         sort | spread 400)
echo "seed_tensor_reader: $n tensors"
