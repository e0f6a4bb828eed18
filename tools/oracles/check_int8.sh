#!/usr/bin/env bash
# The int8 model gate (issue 14; spec-source oracles.md "The int8 metric", int8.md "Noise floor of
# the model-level metric"): tools/oracles/check_int8.py on the int8 reference directories made by
# make_reference.py --variant int8, optimized engine, fast and exact mode, 1 and 2 threads.
#   tools/oracles/check_int8.sh ONEMODEL_BINARY [--full] [extra check_int8.py options]
# Without --full only the CI subset runs (CI_ROWS: cheap enough for CTest on two cores, measured in
# docs/reference-models.md "int8 variants"); --full runs batch 1 and the batch-N rows of every model.
# The floors are read from floor.json in each directory (made by tools/oracles/setup.sh --models);
# a missing or stale one is measured first (minutes for the large models).
# Python: $ONEMODEL_PYTHON, else build/venv (tools/setup.sh), else the oracle venv; it needs numpy,
# onnx and onnxruntime 1.31.1.
# Exit 77 (CTest's skip code) when no int8 reference data exists: reported as skipped, never passed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="${1:?usage: check_int8.sh ONEMODEL_BINARY [--full] [check_int8.py options]}"
shift
# MiniLM (dynamic: DynamicQuantizeLinear, MatMulInteger), MobileNetV3 at batch 1 and 8 (static QDQ: QuantizeLinear,
# DequantizeLinear around float convolutions) and the Whisper decoder (dynamic, with decisions).
CI_ROWS="minilm-l6:1,mobilenetv3:1,mobilenetv3:8,whisper-dec:1"
rows=(--rows "$CI_ROWS")
if [ "${1:-}" = "--full" ]; then rows=(--full); shift; fi
home="${ONEMODEL_HOME:-$HOME/onemodel}"
python="${ONEMODEL_PYTHON:-}"
for candidate in "$python" "$root/build/venv/bin/python" "$home/venvs/oracles/bin/python"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then python="$candidate"; break; fi
done
if [ -z "$python" ] || [ ! -x "$python" ]; then
  echo "check_int8: FAIL: no Python with onnxruntime (set ONEMODEL_PYTHON or run tools/setup.sh)"
  exit 1
fi
exec "$python" "$root/tools/oracles/check_int8.py" "$binary" "${rows[@]}" "$@"
