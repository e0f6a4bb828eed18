#!/usr/bin/env python3
"""int8_unsaturated.py: the uint8-shifted model has the ONNX-defined results of the original, and
ONNX Runtime computes them exactly (issue 15, session 34). A MatMulInteger with int8 weights and
zero point at the u8 x s8 extremes (where an x86 ONNX Runtime without VNNI saturates) against the
product in int64; a DequantizeLinear of int8 weights without a zero point against numpy; the probe
against a direct look at the same product."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import int8_unsaturated  # noqa: E402

failures: list[str] = []


def run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def model_of(nodes, inputs, output_type, inits):
    graph = helper.make_graph(nodes, "t", inputs, [helper.make_tensor_value_info("y", output_type, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


rng = np.random.default_rng(7)
k = 96
a = rng.integers(200, 256, size=(3, k), dtype=np.uint8)
w = rng.integers(100, 128, size=(k, 5), dtype=np.int8)
wz = np.array(-3, np.int8)
matmul = model_of([helper.make_node("MatMulInteger", ["a", "w", "", "wz"], ["y"])],
                  [helper.make_tensor_value_info("a", TensorProto.UINT8, [3, k])], TensorProto.INT32,
                  [numpy_helper.from_array(w, "w"), numpy_helper.from_array(wz, "wz")])
want = a.astype(np.int64) @ (w.astype(np.int64) - int(wz))
shifted, count = int8_unsaturated.shifted_model(matmul)
if count != 1:
    failures.append(f"MatMulInteger: {count} weights shifted, not 1")
got = run(shifted, {"a": a})
if not np.array_equal(got.astype(np.int64), want):
    failures.append("MatMulInteger: the shifted model's product is not the int64 product")
original = run(matmul, {"a": a})  # shifted_model left it as it was
if int8_unsaturated.saturates() == np.array_equal(original.astype(np.int64), want):
    failures.append("saturates() disagrees with this machine's u8 x s8 product")

scale = np.array([0.5, 0.25, 2.0, 1.0, 0.125], np.float32)
x = rng.integers(-128, 128, size=(4, 5), dtype=np.int8)
deq = model_of([helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=1)], [], TensorProto.FLOAT,
               [numpy_helper.from_array(x, "x"), numpy_helper.from_array(scale, "s")])
shifted, count = int8_unsaturated.shifted_model(deq)
if count != 1:
    failures.append(f"DequantizeLinear: {count} weights shifted, not 1")
if not np.array_equal(run(shifted, {}), x.astype(np.float32) * scale):
    failures.append("DequantizeLinear: the shifted model's values differ from (x - 0) * scale")

if failures:
    print("test_int8_unsaturated: FAIL\n  " + "\n  ".join(failures))
    sys.exit(1)
print("test_int8_unsaturated: PASS")
