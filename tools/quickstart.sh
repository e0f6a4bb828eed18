#!/usr/bin/env bash
# README command 1: install what is missing, build the Release library and command line, and run
# the main job on the bundled sample models: describe a model, convert it to the OneModel format,
# load the converted file back and show that both dump to the same structure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash tools/setup.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DONEMODEL_TESTS=OFF >/dev/null
ninja -C build/release onemodel_cli
cli=build/release/onemodel
samples=models/samples

echo "== onemodel info $samples/classifier.onnx"
"$cli" info "$samples/classifier.onnx"
echo
echo "== onemodel info $samples/scorer.onnx"
"$cli" info "$samples/scorer.onnx"
echo
echo "== onemodel run $samples/classifier.onnx (reference engine, fast and exact)"
"$cli" run "$samples/classifier.onnx" --input x="$samples/classifier_x.npy" --engine reference --mode fast
"$cli" run "$samples/classifier.onnx" --input x="$samples/classifier_x.npy" --engine reference --mode exact
echo
echo "== onemodel run $samples/scorer.onnx"
"$cli" run "$samples/scorer.onnx" --input features="$samples/scorer_features.npy" \
  --input bias="$samples/scorer_bias.npy" --output-dir build/scorer-out
echo
echo "== onemodel convert $samples/wide.onnx build/wide.onemodel"
"$cli" convert "$samples/wide.onnx" build/wide.onemodel
"$cli" info build/wide.onemodel
if cmp -s <("$cli" dump "$samples/wide.onnx") <("$cli" dump build/wide.onemodel); then
  echo "wide.onnx and wide.onemodel dump identically"
else
  echo "wide.onnx and wide.onemodel dump differently" >&2
  exit 1
fi
