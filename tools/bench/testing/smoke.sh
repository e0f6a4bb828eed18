#!/bin/sh
# Smoke test of tools/bench (not a measurement): a tiny reference directory, the real ONNX Runtime
# row runner and the FAKE bench_model_row stand-in (or --bench-bin PATH), two rows x "1 all"
# threads, then the report. Everything goes under DIR (default /tmp/onemodel-bench-smoke). It takes
# the real benchmark lock ($ONEMODEL_LOCK, default ~/WORKER-BENCH.lock) for its ~20 seconds, so it
# refuses to run during a measurement; --ignore-load because the point is to test the scripts.
#
#   tools/bench/testing/smoke.sh [DIR] [BENCH_BIN]
set -eu
cd "$(dirname "$0")/../../.."
PY=${ONEMODEL_HOME:-$HOME/onemodel}/venvs/oracles/bin/python
DIR=${1:-/tmp/onemodel-bench-smoke}
BIN=${2:-tools/bench/testing/fake_bench_model_row.py}
CLASS=$(uname -s | tr 'A-Z' 'a-z')-$(uname -m)
mkdir -p "$DIR"
"$PY" tools/bench/testing/make_tiny_reference.py "$DIR/ref"
"$PY" tools/bench/bar.py --rows "tiny-mlp:fp32:1 tiny-mlp:fp32:8" --threads "1 all" \
    --reference-root "$DIR/ref/$CLASS" --bench-bin "$BIN" --out "$DIR/out" \
    --target-seconds 0.2 --ignore-load --allow-non-release
"$PY" tools/bench/report.py --csv "$DIR/out/bar.csv" --out-md "$DIR/performance.md" \
    --out-png "$DIR/performance.png" --note "smoke test, not a measurement"
echo "smoke.sh: $DIR/out/bar.csv $DIR/out/bar.md $DIR/performance.md $DIR/performance.png"
