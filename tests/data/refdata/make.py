#!/usr/bin/env python3
"""Makes the tiny reference directories used by tests/cmake/check_command.cmake.

Run with build/venv/bin/python (onnx 1.23.2, onnxruntime 1.31.1, numpy) from anywhere:

    build/venv/bin/python tests/data/refdata/make.py

It writes, next to this script:
  tiny.onnx           x[2,4] -> MatMul(W) -> Add(b) -> Relu -> Softmax(axis=-1) = y[2,3],
                      ArgMax(y, axis=1, keepdims=0) = cls[2] (int64); opset 17
  good/               inputs/x.npy, outputs/{y,cls}.npy from ONNX Runtime (ORT_ENABLE_ALL,
                      sequential, 1 thread, as ../shared/spec-source/oracles.md "Reference
                      outputs" says) and index.json.in
  wrong/              the same with one element of y changed by 0.01 (its index has the changed
                      file's SHA-256, so only the comparison can catch it)
  blocked.onnx,       com.microsoft Inverse on x[2,2] (an ONNX Runtime contrib operator that
  blocked/            OneModel does not serve): `check` must report the operator and count the
                      directory as blocked; its output is ONNX Runtime's too

index.json.in is index.json in format "onemodel-reference-1" with the model's absolute path left as
@REFDATA_MODEL_FILE@: CMake fills it in at configure time. The expected outputs come from ONNX
Runtime, never from OneModel.
"""
import hashlib
import io
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def make_model():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((3,)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["xwb"]),
        helper.make_node("Relu", ["xwb"], ["r"]),
        helper.make_node("Softmax", ["r"], ["y"], axis=-1),
        helper.make_node("ArgMax", ["y"], ["cls"], axis=1, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("cls", TensorProto.INT64, [2])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def npy_bytes(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def make_blocked_model():
    node = helper.make_node("Inverse", ["x"], ["y"], domain="com.microsoft")
    graph = helper.make_graph([node], "blocked",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="make.py")
    model.ir_version = 8
    return model


def ort_session(model_path):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])


def write_dir(name, model_sha, inputs, outputs):
    entries = {"inputs": [], "outputs": []}
    for kind, tensors in (("inputs", inputs), ("outputs", outputs)):
        os.makedirs(os.path.join(HERE, name, kind), exist_ok=True)
        for tensor_name, array in tensors.items():
            data = npy_bytes(array)
            rel = "%s/%s.npy" % (kind, tensor_name)
            with open(os.path.join(HERE, name, rel), "wb") as f:
                f.write(data)
            entries[kind].append({"name": tensor_name, "file": rel, "dtype": str(array.dtype),
                                  "shape": list(array.shape), "sha256": hashlib.sha256(data).hexdigest()})
    index = {
        "format": "onemodel-reference-1",
        "model": "blocked" if name == "blocked" else "tiny",
        "variant": {"good": "fp32", "wrong": "fp32-wrong"}.get(name, name),
        "batch": 2, "model_file": "@REFDATA_MODEL_FILE@", "model_sha256": model_sha,
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1, "inter_op_num_threads": 1},
        "inputs": entries["inputs"], "outputs": entries["outputs"],
    }
    with open(os.path.join(HERE, name, "index.json.in"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


def main():
    model_bytes = make_model().SerializeToString()
    model_path = os.path.join(HERE, "tiny.onnx")
    with open(model_path, "wb") as f:
        f.write(model_bytes)
    model_sha = hashlib.sha256(model_bytes).hexdigest()

    x = np.random.default_rng(11).standard_normal((2, 4)).astype(np.float32)
    session = ort_session(model_path)
    y, cls = session.run(["y", "cls"], {"x": x})

    write_dir("good", model_sha, {"x": x}, {"y": y, "cls": cls})
    wrong = y.copy()
    wrong[1, 2] += np.float32(0.01)
    write_dir("wrong", model_sha, {"x": x}, {"y": wrong, "cls": cls})

    blocked_bytes = make_blocked_model().SerializeToString()
    blocked_path = os.path.join(HERE, "blocked.onnx")
    with open(blocked_path, "wb") as f:
        f.write(blocked_bytes)
    m = np.array([[2, 1], [1, 3]], dtype=np.float32)
    (inverse,) = ort_session(blocked_path).run(["y"], {"x": m})
    write_dir("blocked", hashlib.sha256(blocked_bytes).hexdigest(), {"x": m}, {"y": inverse})


if __name__ == "__main__":
    main()
