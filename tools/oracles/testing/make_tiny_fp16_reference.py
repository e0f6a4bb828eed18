#!/usr/bin/env python3
"""A tiny stand-in for the float16 reference data, to test tools/oracles/check_fp16.py and
fp16_convert.py end to end (not a reference model; nothing here is a measurement).

    ~/onemodel/venvs/oracles/bin/python tools/oracles/testing/make_tiny_fp16_reference.py ROOT

Writes ROOT/models/tiny-fp16.onnx (float32: Mul, Add, Relu, Sub, Div, Max, two outputs, a constant
of -1e9 that the conversion must clamp to -65504) and, through fp16_convert.convert,
ROOT/models/tiny-fp16_fp16.onnx; then, for batches 1 and 4, ROOT/<os>-<arch>/tiny-fp16/fp32/b<n>/ and
.../fp16/b<n>/ in the layout of make_reference.py (the fp16 one with its fp16.json). The element-wise
operators were chosen because the engines accept float16 for them without the half-precision
adapter (spec/operators.tsv), so the checker's plumbing can run before the adapter exists:

    PY tools/oracles/check_fp16.py build/rel/onemodel --reference-root ROOT/<os>-<arch> --full
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fp16_convert  # noqa: E402
import make_reference  # noqa: E402
import oracle_paths as paths  # noqa: E402

import json  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

WIDTH = 64


def make_model() -> onnx.ModelProto:
    rng = np.random.default_rng(16)
    const = {
        "w": (rng.standard_normal(WIDTH) * 3).astype(np.float32),
        "b": (rng.standard_normal(WIDTH) * 0.5).astype(np.float32),
        "c": np.float32([0.25]),
        "d": (rng.uniform(0.5, 2.0, WIDTH)).astype(np.float32),
        "floor": np.float32([-1e9]),  # beyond float16: clamped to -65504 (fp16.md)
    }
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["h"]),
        helper.make_node("Sub", ["h", "c"], ["s"]),
        helper.make_node("Div", ["s", "d"], ["q"]),
        helper.make_node("Max", ["q", "floor"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny_fp16",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", WIDTH]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, ["batch", WIDTH])],
        [numpy_helper.from_array(v, k) for k, v in const.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def write_dir(out: Path, model_path: Path, variant: str, batch: int, x: np.ndarray) -> dict:
    import onnxruntime as ort
    enabled = make_reference.session(model_path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    disabled = make_reference.session(model_path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    names = [o.name for o in enabled.get_outputs()]
    results = enabled.run(names, {"x": x})
    plain = disabled.run(names, {"x": x})
    index = {
        "format": "onemodel-reference-1", "inputs_version": make_reference.INPUTS_VERSION, "model": "tiny-fp16",
        "variant": variant, "batch": batch, "model_file": str(model_path.resolve()),
        "model_sha256": paths.sha256_file(model_path),
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1, "inter_op_num_threads": 1},
        "inputs": [make_reference.write_array(out / "inputs", "x", x)], "outputs": []}
    for n, value, other in zip(names, results, plain):
        record = make_reference.write_array(out / "outputs", n, value)
        record["ort_noise_scaled"] = make_reference.scaled_difference(value, other)
        index["outputs"].append(record)
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return {"index": index, "results": dict(zip(names, results)), "disabled": dict(zip(names, plain))}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = Path(sys.argv[1])
    (root / "models").mkdir(parents=True, exist_ok=True)
    fp32_path, fp16_path = root / "models" / "tiny-fp16.onnx", root / "models" / "tiny-fp16_fp16.onnx"
    model = make_model()
    onnx.save(model, str(fp32_path))
    converted, stats = fp16_convert.convert(model)
    onnx.checker.check_model(converted, full_check=True)
    assert stats.clamped == 1, "the -1e9 constant must be clamped"
    assert [i.type.tensor_type.elem_type for i in converted.graph.input] == [TensorProto.FLOAT]
    assert [o.type.tensor_type.elem_type for o in converted.graph.output] == [TensorProto.FLOAT] * 2
    onnx.save(converted, str(fp16_path))
    machine = root / paths.machine_class()
    for batch in (1, 4):
        x = (np.random.default_rng(batch).standard_normal((batch, WIDTH)) * 2).astype(np.float32)
        fp32_dir = machine / "tiny-fp16" / "fp32" / f"b{batch}"
        fp16_dir = machine / "tiny-fp16" / "fp16" / f"b{batch}"
        write_dir(fp32_dir, fp32_path, "fp32", batch, x)
        made = write_dir(fp16_dir, fp16_path, "fp16", batch, x)
        make_reference.write_fp16_record(fp16_dir, fp32_dir, made["index"], made["results"], made["disabled"])
    print(f"make_tiny_fp16_reference: {machine}/tiny-fp16/{{fp32,fp16}}/b{{1,4}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
