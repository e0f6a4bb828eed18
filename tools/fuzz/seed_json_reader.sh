#!/usr/bin/env bash
# Seeds the json_reader corpus with the manifests of converted models (the bytes from offset 64,
# manifest_length long, spec/format.md section 1.1), converted as seed_format_reader.sh does
# (at most 100). The hand-written seeds in fuzz/corpus/json_reader are copied by run_fuzz.sh.
#   tools/fuzz/seed_json_reader.sh BUILD_DIR CORPUS_DIR
set -euo pipefail
source "$(dirname "$0")/seed_common.sh"
build="$1"; corpus="$2"
data="$(backend_dir "$build")"
cli="$build/onemodel"
[ -x "$cli" ] || { echo "seed_json_reader: no $cli; committed seeds only" >&2; exit 0; }
[ -d "$data" ] || { echo "seed_json_reader: no backend test data at $data" >&2; exit 0; }
mkdir -p "$corpus"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
n=0
while IFS= read -r f; do
  "$cli" convert "$f" "$tmp/m.onemodel" >/dev/null 2>&1 || continue
  # header.manifest_length: u64 little endian at offset 24.
  len="$(od -An -t u8 -j 24 -N 8 "$tmp/m.onemodel" | tr -d ' ')"
  tail -c +65 "$tmp/m.onemodel" | head -c "$len" > "$corpus/$(seed_name "$(dirname "$f")").json"
  n=$((n + 1))
done < <(find "$data" -name model.onnx -size -64k | sort | spread 100)
echo "seed_json_reader: $n manifests"
