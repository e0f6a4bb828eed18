"""The `float8` family of tools/oracles/ops_cases.py (issue 17): ONNX Runtime 1.31.1 oracle cases for
the 8-bit float types through Cast and QuantizeLinear/DequantizeLinear. NumPy has no 8-bit floats,
so every case is a small graph whose inputs and outputs are float32 or float16 and whose 8-bit
values are intermediate: Cast(x -> float8, saturate) -> Cast(-> float32), and QuantizeLinear ->
DequantizeLinear with an 8-bit float zero point made by a Constant node. Every 8-bit value is a
binary32 number, so the float32 output shows the code exactly (a NaN as NaN).

Inputs mix random values at several scales with every kind of boundary: the largest finite values
and the first step beyond, the ties between neighbours (top ties included), subnormals, signed
zeros, infinities and NaN. Every case is `exact`. Semantics: spec/tensors.md section 2.1,
spec/ops/elementwise.md section 7.1, spec/ops/quantization.md section 15. Seeded: the family's PCG64
seed (113) is in ops_cases.FAMILIES.
"""
import numpy as np
from onnx import TensorProto, helper

EXACT = "exact"

# (ONNX code, largest finite value, next step above it, smallest subnormal)
FORMATS = [
    (TensorProto.FLOAT8E4M3FN, 448.0, 480.0, 2.0 ** -9),
    (TensorProto.FLOAT8E4M3FNUZ, 240.0, 256.0, 2.0 ** -10),
    (TensorProto.FLOAT8E5M2, 57344.0, 65536.0, 2.0 ** -16),
    (TensorProto.FLOAT8E5M2FNUZ, 57344.0, 65536.0, 2.0 ** -17),
]


def _boundaries(top, step, tiny):
    """Values at and around every special point of a format, both signs."""
    pts = [0.0, tiny, tiny / 2, tiny * 1.5, tiny * 0.49, tiny * 0.51, top, (top + step) / 2, step, top * 1.01,
           1.0, 1.0625, 1.125, 1.1875, 0.75, 3.0, 1e6, 1e-30]
    pts = pts + [np.nextafter(np.float32(p), np.float32(np.inf)) for p in pts] + \
        [np.nextafter(np.float32(p), np.float32(0)) for p in pts]
    vals = np.array(pts, np.float32)
    vals = np.concatenate([vals, -vals, np.array([np.inf, -np.inf, np.nan, -0.0], np.float32)])
    return vals


def _cast_chain(f, x, code, saturate, opset, tag, to_back=TensorProto.FLOAT):
    nodes = [helper.make_node("Cast", ["x"], ["q"], name="n0", to=code, saturate=saturate),
             helper.make_node("Cast", ["q"], ["y"], name="n1", to=to_back)]
    f.add("Cast", [("x", x)], opset=opset, outputs=["y"], tol=EXACT, nodes=nodes, tag=tag)


def _qdq_chain(f, x, scale, code, zp_value, saturate, opset, tag):
    zp = helper.make_tensor("zp_value", code, [], [zp_value])
    nodes = [helper.make_node("Constant", [], ["zp"], name="n0", value=zp),
             helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], name="n1", saturate=saturate),
             helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], name="n2")]
    f.add("QuantizeLinear", [("x", x), ("s", np.array(scale, np.float32))], opset=opset, outputs=["y"], tol=EXACT,
          nodes=nodes, const=("s",), tag=tag)


def gen_float8(f):
    for code, top, step, tiny in FORMATS:
        name = TensorProto.DataType.Name(code).lower()
        edges = _boundaries(top, step, tiny)
        for saturate in (1, 0):
            for opset in (19, 21, 25):
                _cast_chain(f, edges, code, saturate, opset, "%s_sat%d_edges" % (name, saturate))
            for scale in (1e-3, 1.0, 1e3):
                x = (f.rng.standard_normal((3, 17)) * scale * top / 4).astype(np.float32)
                _cast_chain(f, x, code, saturate, 21, "%s_sat%d_random" % (name, saturate))
            # float16 sources (every value exact in binary32 on the way back).
            _cast_chain(f, edges.astype(np.float16), code, saturate, 21, "%s_sat%d_f16" % (name, saturate),
                        to_back=TensorProto.FLOAT16)
            # Quantize -> dequantize: zero point 0, then a non-zero one.
            x = np.concatenate([edges, (f.rng.standard_normal(24) * top / 2).astype(np.float32)])
            for zp_value in (0.0, 1.0):
                for scale in (0.5, 3.0):
                    _qdq_chain(f, x, scale, code, zp_value, saturate, 21,
                               "%s_sat%d_zp%g_s%g" % (name, saturate, zp_value, scale))
    # FLOAT8E8M0 (opset 25): every rounding mode, both saturate values, on positive values (ONNX
    # leaves negative ones unspecified).
    pos = np.array([1.0, 1.5, 2.9, 3.0, 3.1, 0.75, 2.0 ** -126, 2.0 ** -127, 2.0 ** -128, 2.0 ** 127, 1e38, 3e38,
                    0.3, 100.0, 1e-20, 6.0, 5.0], np.float32)
    for mode in ("up", "down", "nearest"):
        for saturate in (1, 0):
            nodes = [helper.make_node("Cast", ["x"], ["q"], name="n0", to=TensorProto.FLOAT8E8M0, saturate=saturate,
                                      round_mode=mode),
                     helper.make_node("Cast", ["q"], ["y"], name="n1", to=TensorProto.FLOAT)]
            f.add("Cast", [("x", pos)], opset=25, outputs=["y"], tol=EXACT, nodes=nodes,
                  tag="float8e8m0_%s_sat%d" % (mode, saturate))
