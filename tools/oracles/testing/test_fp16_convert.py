#!/usr/bin/env python3
"""Checks of tools/oracles/fp16_convert.py on small graphs that exercise each of its rules (run with
the oracle environment; prints "test_fp16_convert: PASS"):

    ~/onemodel/venvs/oracles/bin/python tools/oracles/testing/test_fp16_convert.py

  * a slot whose schema constraint excludes float16 stays float32 (LayerNormalization's Mean, U) and
    its consumer gets a Cast; Resize's scales (a concrete tensor(float)) stay float32;
  * a float chain that ends in a Cast to an integer (a size computed in float) stays float32;
  * Constant value_float, ConstantOfShape without a value (float32 zeros), and Cast(to=FLOAT)
    become float16; an initializer of -1e9 is clamped to -65504, +inf stays +inf;
  * graph inputs and outputs keep float32, int64 inputs are untouched;
  * ONNX Runtime runs the result, and its outputs are close to the float32 model's.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fp16_convert  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

F, H, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64


def model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln", "mean", "inv"], axis=-1),
        helper.make_node("Add", ["ln", "mean"], ["lm"]),  # mean stays float32; Add wants float16
        helper.make_node("Constant", [], ["two"], value_float=2.0),
        helper.make_node("Mul", ["lm", "two"], ["m2"]),
        helper.make_node("Max", ["m2", "big"], ["mx"]),  # big = 1e9 -> 65504
        helper.make_node("Min", ["mx", "inf"], ["mn"]),  # +inf stays +inf (not clamped), so Min(x, inf) = x
        helper.make_node("Max", ["mn", "m2"], ["y"]),
        # A size computed in float: Shape -> Cast(float) -> Mul(1.5) -> Cast(int64)
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Cast", ["shape"], ["shape_f"], to=F),
        helper.make_node("Mul", ["shape_f", "scale"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["size"], to=I64),
        helper.make_node("ConstantOfShape", ["size"], ["zeros"]),  # float32 zeros by default
        helper.make_node("Add", ["zeros", "one"], ["z1"]),
        # Resize: scales is tensor(float) in the schema, so it stays float32.
        helper.make_node("Unsqueeze", ["y", "axes"], ["y4"]),
        helper.make_node("Resize", ["y4", "", "rscales"], ["r"], mode="nearest"),
        helper.make_node("Cast", ["ids"], ["ids_f"], to=F),
        helper.make_node("Add", ["ids_f", "one"], ["ids1"]),
    ]
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("gamma", np.linspace(0.5, 1.5, 8, dtype=np.float32)), ("beta", np.full(8, 0.1, np.float32)),
        ("big", np.float32([-1e9])), ("inf", np.float32([np.inf])), ("scale", np.float32([1.5])),
        ("one", np.float32([1.0])), ("axes", np.int64([0, 1])), ("rscales", np.float32([1, 1, 2, 2]))]]
    graph = helper.make_graph(
        nodes, "rules",
        [helper.make_tensor_value_info("x", F, [4, 8]), helper.make_tensor_value_info("ids", I64, [3])],
        [helper.make_tensor_value_info("y", F, [4, 8]), helper.make_tensor_value_info("z1", F, [6, 12]),
         helper.make_tensor_value_info("r", F, [1, 1, 8, 16]), helper.make_tensor_value_info("ids1", F, [3])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def main() -> int:
    original = model()
    converted, stats = fp16_convert.convert(original)
    onnx.checker.check_model(converted, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(converted, strict_mode=True)
    types = {v.name: v.type.tensor_type.elem_type for v in
             list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    inits = {t.name: t for t in converted.graph.initializer}
    failures = []

    def expect(what, ok):
        if not ok:
            failures.append(what)

    expect("inputs keep their types", [types["x"], types["ids"]] == [F, I64])
    expect("outputs stay float32", all(types[o.name] == F for o in converted.graph.output))
    expect("LayerNormalization Mean stays float32 (U excludes float16)", types["mean"] == F)
    expect("LayerNormalization Y is float16", types["ln"] == H)
    expect("Resize scales stay float32", inits["rscales"].data_type == F)
    expect("the float size chain stays float32", types["shape_f"] == F and types["scaled"] == F
           and inits["scale"].data_type == F)
    expect("ConstantOfShape without value gives float16", types["zeros"] == H)
    expect("Constant value_float gives float16", types["two"] == H)
    expect("Cast(to=FLOAT) of an activation becomes float16", types["ids_f"] == H)
    big = numpy_helper.to_array(inits["big"])
    expect("1e9 clamped to -65504", big.dtype == np.float16 and float(big[0]) == -65504.0)
    expect("inf stays inf", np.isposinf(numpy_helper.to_array(inits["inf"]).astype(np.float32)).all())
    expect("one value clamped", stats.clamped == 1)
    feeds = {"x": np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32),
             "ids": np.int64([1, 2, 3000])}
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(original.SerializeToString(), options).run(None, feeds)
    got = ort.InferenceSession(converted.SerializeToString(), options).run(None, feeds)
    for name, a, b in zip([o.name for o in original.graph.output], want, got):
        expect(f"{name}: shape", a.shape == b.shape)
        scale = max(float(np.max(np.abs(a))), 1e-30)
        expect(f"{name}: within 4e-3 scaled of float32", float(np.max(np.abs(a - b))) / scale <= 4e-3)
    for f in failures:
        print(f"test_fp16_convert: FAIL: {f}")
    if failures:
        return 1
    print("test_fp16_convert: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
