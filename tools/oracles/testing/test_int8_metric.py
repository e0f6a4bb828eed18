#!/usr/bin/env python3
"""Checks of the int8 metric and its floor (tools/oracles/int8_metric.py, int8_floor.py; spec-source
oracles.md "The int8 metric", int8.md "Noise floor of the model-level metric"). Expected values are
worked out by hand below, not taken from the code under test. Needs numpy, onnx and onnxruntime;
prints "test_int8_metric: PASS" (CTest: int8_metric_tools).

    python3 tools/oracles/testing/test_int8_metric.py
"""
import json
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import int8_floor  # noqa: E402
import int8_metric  # noqa: E402
import oracle_paths as paths  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

failures = []


def check(what, got, want, tol=1e-12):
    ok = (got is None and want is None) or (
        got is not None and want is not None and abs(got - want) <= tol)
    if not ok:
        failures.append(f"{what}: got {got}, want {want}")


def test_statistics():
    # Row cosines: (1,0).(1,1) = 1/sqrt(2); two zero rows are equal (1); zero vs non-zero is 0.
    rows = int8_metric.row_cosines(np.array([[1, 0], [0, 0], [0, 0]], np.float32),
                                   np.array([[1, 1], [0, 0], [1, 0]], np.float32))
    for k, want in enumerate([1 / math.sqrt(2), 1.0, 0.0]):
        check(f"row cosine {k}", float(rows[k]), want)
    # Fewer than 100 rows: the minimum. 3 rows, one orthogonal: 0.
    ref = np.eye(3, dtype=np.float32)
    ours = ref.copy()
    ours[1] = [0, 0, 1]
    check("minimum below 100 rows", int8_metric.statistics(ours, ref, False)["row"], 0.0)
    # 200 rows, two orthogonal (cosine 0), the rest equal (1): the 1st percentile with linear
    # interpolation sits at rank 0.01 * 199 = 1.99 of the sorted values 0, 0, 1, ... -> 0.99.
    ref = np.tile(np.array([[1, 0]], np.float32), (200, 1))
    ours = ref.copy()
    ours[5] = [0, 1]
    ours[17] = [0, 3]
    check("1st percentile of 200 rows", int8_metric.statistics(ours, ref, False)["row"], 0.99, 1e-9)
    # Pooled (rank 3): ours rows (1,0),(0,1) mean (0.5,0.5); ref (1,0),(1,0) mean (1,0): 1/sqrt(2).
    stat = int8_metric.statistics(np.array([[[1, 0], [0, 1]]], np.float32),
                                  np.array([[[1, 0], [1, 0]]], np.float32), False)
    check("pooled cosine", stat["pooled"], 1 / math.sqrt(2))
    check("no decisions for an encoder", stat["agree"], None)
    # Decisions: argmax over the last axis, 2 of 3 rows agree.
    stat = int8_metric.statistics(np.array([[1, 2], [3, 1], [0, 5]], np.float32),
                                  np.array([[0, 9], [1, 2], [0, 1]], np.float32), True)
    check("decisions agree", stat["agree"], 2)
    check("decision positions", stat["positions"], 3)
    check("rank 2 has no pooled statistic", stat["pooled"], None)
    # Shape mismatch and NaN are the worst values, never a pass.
    stat = int8_metric.statistics(np.zeros((2, 3), np.float32), np.ones((3, 2), np.float32), True)
    check("shape mismatch row", stat["row"], -1.0)
    check("shape mismatch decisions", stat["agree"], 0)
    nan = np.ones((2, 2), np.float32)
    nan[0, 0] = np.nan
    check("NaN row", int8_metric.statistics(nan, np.ones((2, 2), np.float32), False)["row"], -1.0)


def test_verdict():
    floor = {"row": 0.995, "pooled": 0.95, "agree": 14, "positions": 16}
    ours = {"row": 0.991, "pooled": 0.96, "agree": 15, "positions": 16}
    # Gate min(0.99, 0.995) = 0.99 <= 0.991; pooled 0.96 >= 0.95; 15/16 = 93.75% < 95% but >= 14.
    if int8_metric.verdict(ours, floor):
        failures.append(f"verdict: a passing row fails: {int8_metric.verdict(ours, floor)}")
    for change, why in (({"row": 0.989}, "row below 0.99"), ({"pooled": 0.949}, "pooled below the floor"),
                        ({"agree": 13}, "decisions below 95% and the floor")):
        if not int8_metric.verdict({**ours, **change}, floor):
            failures.append(f"verdict: {why} passes")
    # 16 of 16 floor: 15 is below both 95% (15.2) and the floor.
    if not int8_metric.verdict(ours, {**floor, "agree": 16}):
        failures.append("verdict: 15/16 passes against a floor of 16")
    # One decision must agree where ONNX Runtime's own floor runs hold it (floor 1 of 1)...
    one = {"row": 1.0, "pooled": None, "agree": 0, "positions": 1}
    if not int8_metric.verdict(one, {"row": 1.0, "pooled": None, "agree": 1, "positions": 1}):
        failures.append("verdict: a wrong single decision passes against a floor that holds it")
    # ...and is not gated where they flip it too (floor 0 of 1); the cosine gate still applies.
    if int8_metric.verdict(one, {"row": 1.0, "pooled": None, "agree": 0, "positions": 1}):
        failures.append("verdict: a single decision ONNX Runtime's own noise flips fails the row")
    if not int8_metric.verdict({**one, "row": 0.98}, {"row": 1.0, "pooled": None, "agree": 0, "positions": 1}):
        failures.append("verdict: a low row cosine passes with an unstable single decision")


def tiny_dynamic_model(tap_is_input: bool) -> onnx.ModelProto:
    """x -> Relu -> t -> DynamicQuantizeLinear -> MatMulInteger(int8 W) -> float * scale -> y
    (the dynamic-quantization pattern of onnxruntime.quantization); with tap_is_input the
    DynamicQuantizeLinear reads x itself."""
    rng = np.random.default_rng(3)
    w = rng.integers(-100, 100, size=(8, 4), dtype=np.int8)
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(np.array(0, np.int8), "Wz"),
             numpy_helper.from_array(np.array(0.01, np.float32), "Ws")]
    source = "x" if tap_is_input else "t"
    nodes = ([] if tap_is_input else [helper.make_node("Relu", ["x"], ["t"])]) + [
        helper.make_node("DynamicQuantizeLinear", [source], ["q", "qs", "qz"]),
        helper.make_node("MatMulInteger", ["q", "W", "qz", "Wz"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["qs", "Ws"], ["scale"]),
        helper.make_node("Mul", ["accf", "scale"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def tiny_refdir(folder: Path, model: onnx.ModelProto) -> Path:
    """A reference directory in make_reference.py's layout, output from ONNX Runtime ORT_ENABLE_ALL."""
    import onnxruntime as ort
    model_path = folder / "tiny.onnx"
    onnx.save(model, str(model_path))
    x = np.random.default_rng(5).standard_normal((3, 8)).astype(np.float32)
    y = int8_floor.session(str(model_path), ort.GraphOptimizationLevel.ORT_ENABLE_ALL).run(["y"], {"x": x})[0]
    refdir = folder / "tiny" / "int8" / "b3"
    (refdir / "inputs").mkdir(parents=True)
    (refdir / "outputs").mkdir()
    np.save(refdir / "inputs" / "x.npy", x)
    np.save(refdir / "outputs" / "y.npy", y)
    index = {"format": "onemodel-reference-1", "model": "tiny", "variant": "int8", "batch": 3,
             "model_file": str(model_path), "model_sha256": paths.sha256_file(model_path),
             "inputs": [{"name": "x", "file": "inputs/x.npy"}], "outputs": [{"name": "y", "file": "outputs/y.npy"}]}
    (refdir / "index.json").write_text(json.dumps(index), encoding="utf-8")
    return refdir


def test_floor():
    with tempfile.TemporaryDirectory(prefix="int8-floor-test-") as scratch:
        for tap_is_input in (False, True):
            folder = Path(scratch) / ("input" if tap_is_input else "inner")
            folder.mkdir()
            model = tiny_dynamic_model(tap_is_input)
            check(f"first DynamicQuantizeLinear input (tap_is_input={tap_is_input})",
                  int8_floor.first_dynamic_quantize_input(model.graph) == ("x" if tap_is_input else "t"), True)
            refdir = tiny_refdir(folder, model)
            record = int8_floor.measure(refdir, "encoder", 4, log=lambda _: None)
            want_runs = {"disabled": 1, "input_noise": 4, "tap_noise": 0 if tap_is_input else 4, "int8_allowed": 1}
            if record["runs"] != want_runs:
                failures.append(f"floor runs (tap_is_input={tap_is_input}): {record['runs']}, want {want_runs}")
            if not tap_is_input:
                # The tap with zeros leaves ONNX Runtime's output unchanged (int8.md).
                check("zero tap scaled error", record["zero_tap"]["y"]["scaled"], 0.0)
                check("zero tap row cosine", record["zero_tap"]["y"]["row"], 1.0, 1e-12)
            else:
                check("no zero tap for an input", record["zero_tap"], None)
            # The floor is the minimum over every run of every set.
            every = [s["y"]["row"] for s in record["per_set"].values()]
            check("floor is the minimum of the sets", record["floor"]["y"]["row"], min(every))
            # Cached while index, ONNX Runtime and the trial count are unchanged; not for another count.
            if int8_floor.cached_floor(refdir, 4) != record:
                failures.append("floor.json is not reused with the same trial count")
            if int8_floor.cached_floor(refdir, 16) is not None:
                failures.append("floor.json is reused for another trial count")
            # The draws are seeded: measuring again gives the same floor.
            again = int8_floor.measure(refdir, "encoder", 4, log=lambda _: None)
            check("repeatable floor", again["floor"]["y"]["row"], record["floor"]["y"]["row"], 0.0)
            # A version-1 record of the same files gains set 4 only: sets 1 to 3 are kept as cached
            # (a marked value survives), the floor is remade over all four, the version is current.
            old = json.loads(json.dumps(again))
            old["floor_version"] = 1
            del old["per_set"]["int8_allowed"], old["runs"]["int8_allowed"]
            old["per_set"]["disabled"]["y"]["row"] = -0.5
            int8_floor.floor_path(refdir).write_text(json.dumps(old), encoding="utf-8")
            upgraded = int8_floor.floor_for(refdir, "encoder", 4, log=lambda _: None)
            check("upgraded version", upgraded["floor_version"], 2, 0)
            check("upgraded keeps the cached sets", upgraded["per_set"]["disabled"]["y"]["row"], -0.5, 0.0)
            check("upgraded floor over four sets", upgraded["floor"]["y"]["row"], -0.5, 0.0)
            if upgraded["runs"].get("int8_allowed") != 1 or "int8_allowed" not in upgraded["per_set"]:
                failures.append(f"upgrade did not add set 4: {upgraded['runs']}")
            if int8_floor.cached_floor(refdir, 4) != upgraded:
                failures.append("the upgraded floor.json is not the current cache")


def tiny_qdq_conv_model() -> onnx.ModelProto:
    """int8 x -> DequantizeLinear -> Conv (int8 weights) -> QuantizeLinear (int8): input and output
    int8, so ONNX Runtime's x86 default keeps the Conv float and its int8-allowed graph fuses it."""
    w = numpy_helper.from_array(np.arange(-4, 5, dtype=np.int8).reshape(1, 1, 3, 3), "w")
    scalars = [numpy_helper.from_array(np.array(v, dtype=t), n) for n, v, t in
               [("sx", 0.05, np.float32), ("zx", 3, np.int8), ("sw", 0.02, np.float32),
                ("zw", 0, np.int8), ("sy", 0.1, np.float32), ("zy", -2, np.int8)]]
    nodes = [helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wf"]),
             helper.make_node("Conv", ["xf", "wf"], ["yf"]),
             helper.make_node("QuantizeLinear", ["yf", "sy", "zy"], ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"])]
    graph = helper.make_graph(nodes, "tiny_qdq_conv",
                              [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 1, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 3, 3])],
                              [w] + scalars)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


def test_int8_allowed_option():
    """Set 4's session option is one ONNX Runtime knows: with it the QDQ Conv becomes QLinearConv,
    without it (the x86 default) it does not. ONNX Runtime ignores unknown keys silently, so a
    misspelt key would make set 4 a copy of the reference and pass unnoticed without this check."""
    import onnxruntime as ort
    with tempfile.TemporaryDirectory(prefix="int8-allowed-test-") as scratch:
        model = Path(scratch) / "qdq_conv.onnx"
        onnx.save(tiny_qdq_conv_model(), str(model))
        counts = {}
        for allowed in (False, True):
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.optimized_model_filepath = str(Path(scratch) / f"opt-{allowed}.onnx")
            if allowed:
                options.add_session_config_entry(int8_floor.INT8_ALLOWED, "1")
            ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            optimized = onnx.load(options.optimized_model_filepath)
            counts[allowed] = sum(n.op_type == "QLinearConv" for n in optimized.graph.node)
        if counts != {False: 0, True: 1}:
            failures.append(f"QLinearConv count without/with {int8_floor.INT8_ALLOWED}: {counts}, want 0/1")


def main() -> int:
    test_statistics()
    test_verdict()
    test_floor()
    test_int8_allowed_option()
    for failure in failures:
        print(f"test_int8_metric: FAIL: {failure}")
    if failures:
        return 1
    print("test_int8_metric: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
