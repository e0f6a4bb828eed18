#!/usr/bin/env python3
"""A tiny stand-in for the reference data, for testing the bar scripts (not a reference model).

    $ONEMODEL_HOME/venvs/oracles/bin/python tools/bench/testing/make_tiny_reference.py /tmp/bench-ref

Writes a small MLP (MatMul + Add + Relu + MatMul, two outputs, dynamic batch) as
ROOT/models/tiny-mlp.onnx and, for batches 1 and 8, ROOT/<os>-<arch>/tiny-mlp/fp32/b<batch>/ in the
layout of tools/oracles/make_reference.py: inputs/*.npy, outputs/*.npy (ONNX Runtime,
ORT_ENABLE_ALL, sequential, 1 thread) and index.json ("onemodel-reference-1"). Then
`bar.py --reference-root ROOT/<os>-<arch> --rows "tiny-mlp:fp32:1 tiny-mlp:fp32:8"`.
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchlib  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

WIDTH, HIDDEN = 256, 1024


def make_model(path: Path) -> None:
    rng = np.random.default_rng(1234)
    w1 = (rng.standard_normal((WIDTH, HIDDEN)) / np.sqrt(WIDTH)).astype(np.float32)
    b1 = (0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, WIDTH)) / np.sqrt(HIDDEN)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["hidden"]),
        helper.make_node("MatMul", ["hidden", "w2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", WIDTH]),
         helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", HIDDEN])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


def write_reference(root: Path, model_path: Path, batch: int) -> Path:
    refdir = benchlib.row_refdir(root, "tiny-mlp", "fp32", batch)
    (refdir / "inputs").mkdir(parents=True, exist_ok=True)
    (refdir / "outputs").mkdir(parents=True, exist_ok=True)
    x = np.random.default_rng(batch).standard_normal((batch, WIDTH)).astype(np.float32)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    outputs = dict(zip(names, session.run(names, {"x": x})))

    def entry(kind, name, array):
        file = f"{kind}/{name}.npy"
        np.save(refdir / file, array)
        return {"name": name, "file": file, "dtype": str(array.dtype), "shape": list(array.shape),
                "sha256": benchlib.sha256_file(refdir / file)}

    index = {
        "format": "onemodel-reference-1",
        "model": "tiny-mlp", "variant": "fp32", "batch": batch,
        "model_file": str(model_path),
        "model_sha256": benchlib.sha256_file(model_path),
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1,
                        "inter_op_num_threads": 1},
        "inputs": [entry("inputs", "x", x)],
        "outputs": [entry("outputs", name, outputs[name]) for name in names],
    }
    (refdir / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return refdir


def main() -> int:
    parser = argparse.ArgumentParser(description="tiny reference data for testing tools/bench")
    parser.add_argument("root", type=Path)
    args = parser.parse_args()
    root = args.root.resolve()
    model_path = root / "models" / "tiny-mlp.onnx"
    make_model(model_path)
    for batch in (1, 8):
        print(write_reference(root / benchlib.machine_class(), model_path, batch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
