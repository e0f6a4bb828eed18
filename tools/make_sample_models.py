#!/usr/bin/env python3
"""Writes the three sample models of the getting-started page (spec-source/getting-started.md,
"The sample models"): classifier.onnx, scorer.onnx and wide.onnx, built the way the page's
models.py builds them (one generator, seed 7, weights drawn in the same order), so that outputs
quoted from the page can be reproduced. The committed copies are in models/samples/;
tests/cmake/samples.cmake regenerates them and checks the bytes are identical.

  make_sample_models.py [OUTPUT_DIR]        (default: models/samples next to this folder)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "models", "samples")
    os.makedirs(out_dir, exist_ok=True)

    # One generator for all three models: the draws of wide.onnx follow those of classifier.onnx.
    rng = np.random.default_rng(7)

    def weight(name, *shape):
        # A standard normal sample, made float32, then scaled by 0.5 (in float32).
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)

    def save(model, name):
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, name))

    def tensor_info(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    # classifier.onnx: 4 features -> 8 hidden (Relu) -> 3 classes (Softmax). The four weights are
    # drawn in the order W1, b1, W2, b2 (the order of the initializer list).
    nodes = [
        helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["hr"]),
        helper.make_node("Gemm", ["hr", "W2", "b2"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    initializers = [weight("W1", 8, 4), weight("b1", 8), weight("W2", 3, 8), weight("b2", 3)]
    graph = helper.make_graph(nodes, "classifier", [tensor_info("x", ["batch", 4])],
                              [tensor_info("probs", ["batch", 3])], initializers)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8),
         "classifier.onnx")

    # scorer.onnx: two named inputs (features, bias), two outputs (score, best); a fixed W.
    nodes = [
        helper.make_node("MatMul", ["features", "W"], ["proj"]),
        helper.make_node("Add", ["proj", "bias"], ["score"]),
        helper.make_node("ReduceMax", ["score"], ["best"], axes=[1], keepdims=0),
    ]
    w = numpy_helper.from_array(np.array([[1, 0], [0, 1], [1, 1]], np.float32), "W")
    graph = helper.make_graph(nodes, "scorer",
                              [tensor_info("features", ["batch", 3]), tensor_info("bias", [1, 2])],
                              [tensor_info("score", ["batch", 2]), tensor_info("best", ["batch"])], [w])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
         "scorer.onnx")

    # wide.onnx: 256 -> 512 (Relu) -> 64. Here the sample is scaled by 0.05 in float64 and only
    # then made float32; W1 is drawn before W2.
    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["h"]),
        helper.make_node("Relu", ["h"], ["hr"]),
        helper.make_node("MatMul", ["hr", "W2"], ["y"]),
    ]
    w1 = numpy_helper.from_array((rng.standard_normal((256, 512)) * 0.05).astype(np.float32), "W1")
    w2 = numpy_helper.from_array((rng.standard_normal((512, 64)) * 0.05).astype(np.float32), "W2")
    graph = helper.make_graph(nodes, "wide", [tensor_info("x", [1, 256])], [tensor_info("y", [1, 64])],
                              [w1, w2])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8),
         "wide.onnx")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
