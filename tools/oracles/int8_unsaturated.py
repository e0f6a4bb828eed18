"""ONNX Runtime's int8 outputs without its x86 saturation (the int8 gate's oracle, check_int8.py).

On x86-64 without VNNI (AVX2 and AVX-512F machines such as AMD EPYC Zen 3) ONNX Runtime's u8s8
integer products (MatMulInteger and the QLinear kernels its QDQ fusion makes, with int8 weights)
add two 8-bit products into a saturating 16-bit lane (vpmaddubsw): 255 * 127 * 2 = 64770 becomes
32767. Its outputs are then not the ONNX-defined integer results, and the int8 gate compared our
exact integer kernels against them (MiniLM-L6 row cosine 0.977 against a floor of 0.992, on AMD
EPYC Zen 3 in session 34). Its u8u8 products widen to 16 bits and do not saturate.

So where `saturates()` says ONNX Runtime saturates here, the oracle runs the model with every int8
weight shifted to uint8: w' = w + 128 with zero point zp' = zp + 128 (0 + 128 where the node has
none), for MatMulInteger's and ConvInteger's B/W and for DequantizeLinear of an int8 initializer.
(w' - zp') equals (w - zp) exactly, so ONNX defines the same result for the shifted model, and ONNX
Runtime computes it with its exact u8u8 kernels. Every other node and value is unchanged.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# (op type, weight input index, zero point input index)
_WEIGHT_INPUTS = {"MatMulInteger": (1, 3), "ConvInteger": (1, 3), "DequantizeLinear": (0, 2)}


@functools.lru_cache(maxsize=1)
def saturates() -> bool:
    """Whether this machine's ONNX Runtime saturates a u8 x s8 product: 64 steps of 255 * 127."""
    k = 64
    b = numpy_helper.from_array(np.full((k, 1), 127, np.int8), "b")
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    graph = helper.make_graph([node], "probe", [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, k])],
                              [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = int(session.run(None, {"a": np.full((1, k), 255, np.uint8)})[0][0, 0])
    return got != 255 * 127 * k


def shifted_model(model: onnx.ModelProto) -> tuple[onnx.ModelProto, int]:
    """A copy of the model with its int8 weights as uint8 (module docstring); the count of weights
    shifted. The argument is left as it is."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    model = copy
    inits = {t.name: t for t in model.graph.initializer}
    added = []
    shifted = 0
    for index, node in enumerate(model.graph.node):
        spec = _WEIGHT_INPUTS.get(node.op_type)
        if spec is None or len(node.input) <= spec[0]:
            continue
        w_at, zp_at = spec
        weight = inits.get(node.input[w_at])
        if weight is None or weight.data_type != TensorProto.INT8:
            continue
        w = numpy_helper.to_array(weight).astype(np.int16)
        zp_name = node.input[zp_at] if len(node.input) > zp_at else ""
        if zp_name:
            zp_init = inits.get(zp_name)
            if zp_init is None:  # a computed zero point: leave the node as it is
                continue
            zp = numpy_helper.to_array(zp_init).astype(np.int16)
        else:
            # No zero point means 0; DequantizeLinear's scale gives the zero point's shape.
            shape = numpy_helper.to_array(inits[node.input[1]]).shape if node.op_type == "DequantizeLinear" \
                and node.input[1] in inits else ()
            zp = np.zeros(shape, np.int16)
        tag = f"_u8_{index}"
        added.append(numpy_helper.from_array((w + 128).astype(np.uint8), weight.name + tag))
        added.append(numpy_helper.from_array((zp + 128).astype(np.uint8), (zp_name or weight.name + "_zp") + tag))
        inputs = list(node.input)
        while len(inputs) <= zp_at:
            inputs.append("")
        inputs[w_at] = weight.name + tag
        inputs[zp_at] = (zp_name or weight.name + "_zp") + tag
        del node.input[:]
        node.input.extend(inputs)
        shifted += 1
    model.graph.initializer.extend(added)
    # Drop the int8 originals no node reads any more (ONNX Runtime warns about each).
    used = {name for node in model.graph.node for name in node.input} | {o.name for o in model.graph.output}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    return model, shifted


def reference_outputs(model_file: Path, feeds: dict[str, np.ndarray], threads: int = 1) -> dict[str, np.ndarray]:
    """ONNX Runtime's outputs (ORT_ENABLE_ALL, as make_reference.py) for the shifted model."""
    model, _ = shifted_model(onnx.load(str(model_file)))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds)))
