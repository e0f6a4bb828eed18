"""The `subbyte` family of tools/oracles/ops_cases.py (issue 17): ONNX Runtime 1.31.1 oracle cases for
the 4- and 2-bit element types (spec/tensors.md section 2.2): QuantizeLinear, DequantizeLinear and
Cast with UINT4, INT4, UINT2, INT2.

ONNX Runtime's Python API neither feeds nor returns these types (no NumPy type), so every case keeps
them inside the graph: the sub-byte tensors are initializers (ml_dtypes arrays, packed by the onnx
package), or intermediate values between two nodes, and the graph's inputs and outputs are float32:
  - DequantizeLinear of a constant sub-byte x (odd element counts: the last byte is half used), per
    tensor and per axis, with a zero point;
  - QuantizeLinear to a sub-byte type followed by DequantizeLinear back to float32 (the round trip
    shows the quantized integers exactly: (q - zp) * scale with scales of few bits), per tensor, per
    axis and blocked, with x / scale ties and values far outside the range (saturation);
  - Cast float32 -> sub-byte -> float32 on integer-valued inputs (ONNX Runtime rounds halves away from
    zero where the library, following the ONNX int4 page, rounds them to even: spec/ops/elementwise.md
    section 7; integers keep the comparison to the wrap-around, which both do), and Cast of a
    constant sub-byte tensor to float32.
FLOAT4E2M1 has no ONNX Runtime CPU kernel (Cast, QuantizeLinear) and is covered by the backend cases
and the unit tests. A case ONNX Runtime refuses is dropped and printed by ops_cases.py.
Every case is `exact`. Seeded: the family's PCG64 seed (114) is in ops_cases.FAMILIES.
"""
import ml_dtypes
import numpy as np
from onnx import helper

EXACT = "exact"

# ONNX code, ml_dtypes type, range.
TYPES = [
    (21, ml_dtypes.uint4, 0, 15),
    (22, ml_dtypes.int4, -8, 7),
    (25, ml_dtypes.uint2, 0, 3),
    (26, ml_dtypes.int2, -2, 1),
]


def _name(dt):
    return np.dtype(dt).name


def _values(f, shape, dt, lo, hi):
    return np.asarray(f.rng.integers(lo, hi + 1, shape)).astype(np.int64).astype(dt)


def _scale(f, shape):
    # Powers of two times small integers: products and quotients are exact in float32.
    return (f.rng.integers(1, 8, shape) * np.exp2(f.rng.integers(-3, 2, shape))).astype(np.float32)


def gen_subbyte(f):
    for code, dt, lo, hi in TYPES:
        tag = _name(dt)
        opset = 21 if code in (21, 22) else 25  # the 2-bit types exist from opset 25
        # DequantizeLinear of a constant x, per tensor and per axis (axis 0), odd counts.
        for shape in [(7,), (3, 5)]:
            x = _values(f, shape, dt, lo, hi)
            if len(shape) == 1:
                s, z = _scale(f, ()), _values(f, (), dt, lo, hi)
                attrs = {}
            else:
                s, z = _scale(f, (shape[0],)), _values(f, (shape[0],), dt, lo, hi)
                attrs = dict(axis=0)
            f.add("DequantizeLinear", [("x", x), ("s", s), ("z", z)], attrs=attrs, opset=opset, const=("x", "s", "z"),
                  tag=tag)
        # QuantizeLinear then DequantizeLinear: x / scale spans well beyond the range, with ties.
        for layout in ("tensor", "axis", "blocked"):
            shape = (3, 6)
            if layout == "tensor":
                sshape, attrs = (), {}
            elif layout == "axis":
                sshape, attrs = (3,), dict(axis=0)
            else:
                sshape, attrs = (3, 3), dict(axis=1, block_size=2)
            s = _scale(f, sshape)
            z = _values(f, sshape, dt, lo, hi)
            q = f.rng.integers(2 * lo - 4, 2 * hi + 5, shape) / 2.0  # halves: ties of x / scale
            scale_full = s if layout != "blocked" else np.repeat(s, 2, axis=1)
            if layout == "axis":
                scale_full = s.reshape(3, 1)
            x = (q * scale_full).astype(np.float32)
            nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="n0", **attrs),
                     helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y0"], name="n1", **attrs)]
            f.add("QuantizeLinear", [("x", x), ("s", s), ("z", z)], opset=opset, const=("s", "z"), nodes=nodes,
                  tag=tag + "_" + layout)
        # Cast float32 -> sub-byte -> float32 on integers inside and outside the range (wrap).
        x = f.rng.integers(-20, 21, (2, 9)).astype(np.float32)
        nodes = [helper.make_node("Cast", ["x"], ["c"], name="n0", to=code),
                 helper.make_node("Cast", ["c"], ["y0"], name="n1", to=1)]
        f.add("Cast", [("x", x)], opset=opset, nodes=nodes, tag=tag + "_roundtrip")
        # Cast of a constant sub-byte tensor to float32.
        c = _values(f, (5,), dt, lo, hi)
        f.add("Cast", [("c", c)], attrs=dict(to=1), opset=opset, const=("c",), tag=tag + "_constant")
