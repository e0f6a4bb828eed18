#!/usr/bin/env python3
"""EfficientNet-B0 for the self-gate benchmark (docs/design.md "Self-gated activations").

Run with the oracle environment:
    ~/onemodel/venvs/oracles/bin/python tools/oracles/export_efficientnet.py [--force]

Writes $ONEMODEL_HOME/models/efficientnet_b0.onnx (torchvision's definition, seeded random
weights, batch-norm statistics calibrated as export_models.py does for the other conv models;
TorchScript export, opset 17, dynamic batch) and a reference directory for one batch-1 image in the
layout make_reference.py writes, so build/rel/bench_model_row and tools/bench/ort_row.py can time it:
$ONEMODEL_HOME/reference/<os>-<arch>/efficientnet-b0/fp32/b1.

The model is not one of the pinned reference models (tools/models.json): its export is not
byte-stable across machines either, so the file and the directory belong to the machine. Every
SiLU of the network exports as Sigmoid + Mul (ONNX has no SiLU operator), the pattern the
`self-gate` pass fuses.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

import export_models
import make_reference
import oracle_paths as paths

SEED = 2026
NAME = "efficientnet-b0"


def export(out_path: Path) -> None:
    import onnx
    import torch
    import torchvision
    g = export_models.seeded(SEED)
    model = torchvision.models.efficientnet_b0(weights=None)
    export_models.calibrate_batch_norm(model, g)
    example = (torch.randn(1, 3, 224, 224, generator=g),)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(model, example, str(tmp_path), dynamo=False, opset_version=export_models.OPSET,
                              input_names=["input"], output_names=["logits"],
                              dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                              do_constant_folding=True, export_params=True)
        proto = onnx.load(str(tmp_path), load_external_data=True)
        onnx.checker.check_model(proto, full_check=False)
        onnx.save_model(proto, str(out_path), save_as_external_data=False)


def reference(model_path: Path) -> Path:
    import onnxruntime as ort
    out = paths.reference_dir() / NAME / "fp32" / "b1"
    inputs = {"input": np.stack([make_reference.image_sample(NAME, 0, (3, 224, 224))])}
    enabled = make_reference.session(model_path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    names = [o.name for o in enabled.get_outputs()]
    results = enabled.run(names, inputs)
    plain = make_reference.session(model_path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL).run(names, inputs)
    index = {
        "format": "onemodel-reference-1", "inputs_version": make_reference.INPUTS_VERSION, "model": NAME,
        "variant": "fp32", "batch": 1, "model_file": str(model_path), "model_sha256": paths.sha256_file(model_path),
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1, "inter_op_num_threads": 1},
        "inputs": [make_reference.write_array(out / "inputs", "input", inputs["input"])],
        "outputs": [],
    }
    for name, value, unoptimized in zip(names, results, plain):
        record = make_reference.write_array(out / "outputs", name, value)
        record["ort_noise_scaled"] = make_reference.scaled_difference(value, unoptimized)
        index["outputs"].append(record)
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--force", action="store_true", help="export again even when the file exists")
    args = parser.parse_args()
    model_path = paths.models_dir() / "efficientnet_b0.onnx"
    model_path.parent.mkdir(parents=True, exist_ok=True)
    if args.force or not model_path.exists():
        export(model_path)
    import onnx
    ops = [n.op_type for n in onnx.load(str(model_path)).graph.node]
    print(f"export_efficientnet: {model_path}: {len(ops)} nodes, {ops.count('Sigmoid')} Sigmoid, "
          f"{ops.count('Mul')} Mul, {ops.count('Conv')} Conv")
    out = reference(model_path)
    print(f"export_efficientnet: reference directory {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
