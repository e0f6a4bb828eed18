#!/usr/bin/env bash
# Regenerates spec/operators.tsv from the operator table (needs a built command line).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$root/build/release/onemodel}"
"$cli" operators > "$root/spec/operators.tsv"
echo "wrote spec/operators.tsv ($(($(wc -l < "$root/spec/operators.tsv") - 1)) rows)"
