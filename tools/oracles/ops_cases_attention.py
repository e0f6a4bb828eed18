"""The `attention` family of tools/oracles/ops_cases.py (issue 17, exact Attention): ONNX Runtime
1.31.1 oracle cases for Attention (opset 23) over the features the backend cases use and key
lengths across the 64-key blocks of the online softmax (spec/ops/attention.md section 5): 3-D and
4-D inputs, grouped heads, float and boolean masks (broadcast and shorter than the keys), the causal
flag, a past cache with the present outputs, softcap, the scale, and the four qk_matmul_output
modes. FlexAttention (ai.onnx.preview) has no ONNX Runtime kernel: its cases take the onnx
reference evaluator (spec/ops/attention.md section 9), with score_mod and prob_mod subgraphs.
Seeded: the family's PCG64 seed is in ops_cases.FAMILIES; append new cases at the end.
"""
import numpy as np
from onnx import TensorProto, helper

SCALED = "scaled1e-4"


def _mask(f, shape, kind):
    """A float mask with some -inf (never a whole row) or a boolean mask with some False."""
    if kind == "bool":
        m = f.rng.random(shape) < 0.8
        m[..., 0] = True
        return m
    m = f.normal(shape)
    m[f.rng.random(shape) < 0.2] = -np.inf
    m[..., 0] = 0.0
    return m.astype(np.float32)


def gen_attention(f):
    key_lengths = [5, 64, 65, 150]
    # 4-D and 3-D, grouped heads, masks, causal, scale: Y only.
    for i in range(16):
        rank3 = i % 4 == 3
        b = int(f.rng.integers(1, 3))
        hkv = int(f.rng.integers(1, 3))
        hq = hkv * int(f.rng.integers(1, 3))
        lq = int(f.rng.integers(1, 10))
        s = key_lengths[i % len(key_lengths)]
        d = int(f.rng.integers(4, 17))
        dv = int(f.rng.integers(3, 13))
        attrs = {}
        if rank3:
            q = f.normal((b, lq, hq * d), 1.5)
            k = f.normal((b, s, hkv * d), 1.5)
            v = f.normal((b, s, hkv * dv))
            attrs.update(q_num_heads=hq, kv_num_heads=hkv)
        else:
            q = f.normal((b, hq, lq, d), 1.5)
            k = f.normal((b, hkv, s, d), 1.5)
            v = f.normal((b, hkv, s, dv))
        mask_kind = ["none", "float", "bool", "float"][i % 4]
        inputs = [("q", q), ("k", k), ("v", v)]
        if mask_kind != "none":
            shape = [(lq, s), (b, 1, lq, s), (1, hq, lq, s)][i % 3]
            inputs.append(("m", _mask(f, shape, mask_kind)))
        if i % 3 == 1:
            attrs["is_causal"] = 1
        if i % 5 == 2:
            attrs["scale"] = 0.2
        f.add("Attention", inputs, attrs=attrs, opset=23, tol=SCALED, tag="rank3" if rank3 else "rank4")
    # A mask shorter than the keys (the rest is masked).
    q = f.normal((1, 2, 3, 8), 1.5)
    k = f.normal((1, 2, 70, 8), 1.5)
    v = f.normal((1, 2, 70, 8))
    f.add("Attention", [("q", q), ("k", k), ("v", v), ("m", _mask(f, (3, 66), "float"))], opset=23, tol=SCALED,
          tag="short_mask")
    # Past cache and present outputs, with a mask over past + new keys; causal too.
    for i in range(4):
        hkv = 2
        hq = 2 * (1 + i % 2)
        p, s, lq, d, dv = 60, 6, 4, 8, 10
        q = f.normal((2, hq, lq, d), 1.5)
        k = f.normal((2, hkv, s, d), 1.5)
        v = f.normal((2, hkv, s, dv))
        pk = f.normal((2, hkv, p, d), 1.5)
        pv = f.normal((2, hkv, p, dv))
        inputs = [("q", q), ("k", k), ("v", v), ("m", _mask(f, (lq, p + s), "float")), ("pk", pk), ("pv", pv)]
        attrs = {"is_causal": 1} if i >= 2 else {}
        f.add("Attention", inputs, attrs=attrs, opset=23, outputs=3, tol=SCALED, tag="past")
    # Softcap and the qk_matmul_output modes (output 3).
    for mode in range(4):
        q = f.normal((1, 2, 5, 8), 1.5)
        k = f.normal((1, 2, 70, 8), 1.5)
        v = f.normal((1, 2, 70, 6))
        attrs = {"qk_matmul_output_mode": mode}
        if mode != 0:
            attrs["softcap"] = 2.5
        inputs = [("q", q), ("k", k), ("v", v), ("m", _mask(f, (5, 70), "float"))]
        f.add("Attention", inputs, attrs=attrs, opset=23, outputs=["y0", "", "", "y3"], tol=SCALED, tag="qk%d" % mode)
    gen_flex_attention(f)


def _modifier(name, op, constant):
    """A subgraph x_out = op(x_in, constant), constant a float32 initializer of the body."""
    x_in = helper.make_tensor_value_info(name + "_in", TensorProto.FLOAT, ["B", "H", "L", "S"])
    x_out = helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, ["B", "H", "L", "S"])
    c = helper.make_tensor(name + "_c", TensorProto.FLOAT, list(np.shape(constant)),
                           np.asarray(constant, np.float32).ravel().tolist())
    node = helper.make_node(op, [name + "_in", name + "_c"], [name + "_out"])
    return helper.make_graph([node], name, [x_in], [x_out], [c])


def gen_flex_attention(f):
    preview = [("ai.onnx.preview", 1)]
    for i in range(6):
        hkv = int(f.rng.integers(1, 3))
        hq = hkv * int(f.rng.integers(1, 3))
        lq = int(f.rng.integers(1, 8))
        s = [7, 64, 65, 130][i % 4]
        d = int(f.rng.integers(4, 17))
        dv = int(f.rng.integers(3, 13))
        q = f.normal((2, hq, lq, d), 1.5)
        k = f.normal((2, hkv, s, d), 1.5)
        v = f.normal((2, hkv, s, dv))
        attrs = {}
        if i % 3 == 1:
            attrs["scale"] = 0.3
        if i == 2:
            bias = f.normal((lq, s))
            bias[:, 1::3] = -np.inf
            attrs["score_mod"] = _modifier("score_mod", "Add", bias)
        if i == 3:
            attrs["prob_mod"] = _modifier("prob_mod", "Mul", np.array([0.5], np.float32))
        node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y0"], name="n0", domain="ai.onnx.preview", **attrs)
        f.add("FlexAttention", [("q", q), ("k", k), ("v", v)], opset=23, tol=SCALED, onnxref=True, nodes=[node],
              domains=preview)
