#!/usr/bin/env python3
"""Writes the committed seeds of the session fuzzer (fuzz/corpus/session/): the hostile models of
issue 11, each a small ONNX file that crashed, hung or misled the library before its fix.
    build/venv/bin/python3 tools/fuzz/make_session_seeds.py fuzz/corpus/session
Needs the `onnx` package (tools/setup.sh puts it in build/venv)."""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = 2**63 - 1


def model(nodes, inputs, outputs, initializers=(), opset=21):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def seeds():
    # Defect 1: an initializer named "" (the optimized engine wrote initializers[-1]).
    yield "empty-initializer-name", model(
        [helper.make_node("Add", ["x", "k"], ["y"])], [f32("x", [2])], [f32("y", [2])],
        [numpy_helper.from_array(np.ones(2, np.float32), ""), numpy_helper.from_array(np.ones(2, np.float32), "k")])
    # Defect 2: Slice without `ends` (a null input in shaping).
    yield "slice-missing-ends", model(
        [helper.make_node("Slice", ["x", "starts", ""], ["y"])], [f32("x", [4])], [f32("y", None)],
        [numpy_helper.from_array(np.array([1], np.int64), "starts")])
    # Defect 3: linear Resize of an empty axis to a non-empty one.
    yield "resize-empty-axis", model(
        [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")], [f32("x", [1, 1, 0, 2])],
        [f32("y", None)], [numpy_helper.from_array(np.array([1, 1, 2, 2], np.int64), "sizes")])
    # Defect 4: pads that wrap an extent (Release returned a wrong [2, 2] result).
    yield "pad-int64-max", model(
        [helper.make_node("Pad", ["x", "pads"], ["y"])], [f32("x", [2, 4])], [f32("y", None)],
        [numpy_helper.from_array(np.array([0, INT64_MAX, 0, INT64_MAX], np.int64), "pads")])
    yield "depth-to-space-huge-block", model(
        [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2**62)], [f32("x", [1, 4, 1, 1])], [f32("y", None)])
    # Defect 5: 800 element-wise siblings of one value (cubic load in the element-wise chain pass).
    siblings = [helper.make_node("Relu", ["x"], [f"r{i}"]) for i in range(800)]
    yield "siblings-800", model(siblings + [helper.make_node("Sum", [f"r{i}" for i in range(800)], ["y"])],
                                [f32("x", [2])], [f32("y", [2])])
    # Defect 6: one value returned through 16 graph outputs (the memory-budget defect, at a size a
    # fuzzer can afford: 1 MiB).
    nodes = [helper.make_node("ConstantOfShape", ["s"], ["big"])]
    nodes += [helper.make_node("Identity", ["big"], [f"o{i}"]) for i in range(16)]
    yield "identity-outputs-16", model(nodes, [], [f32(f"o{i}", None) for i in range(16)], [numpy_helper.from_array(np.array([1 << 18], np.int64), "s")])
    # Defect 8: a run-time value a node refuses, from a graph input (InvalidInput).
    yield "topk-k-from-input", model(
        [helper.make_node("TopK", ["x", "k"], ["v", "i"])],
        [f32("x", [4]), helper.make_tensor_value_info("k", TensorProto.INT64, [1])],
        [f32("v", None), helper.make_tensor_value_info("i", TensorProto.INT64, None)])


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, m in seeds():
        (out / f"{name}.onnx").write_bytes(m.SerializeToString())
        print(name)


if __name__ == "__main__":
    main()
