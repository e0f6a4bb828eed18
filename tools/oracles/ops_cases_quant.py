"""The `quant` family of tools/oracles/ops_cases.py (issue 14): ONNX Runtime 1.31.1 oracle cases for
the quantized operators of spec-source int8.md ("Operators"): QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, and `qdq_add` graphs
(DequantizeLinear x2 -> Add -> QuantizeLinear) that ONNX Runtime fuses at ORT_ENABLE_ALL.

Every case is `exact` (integer outputs equal, float outputs the same bits) except `qdq_add`, whose
tolerance is `lsb1`: int8.md ("Product kernel", last paragraph) gives ONNX Runtime's own quantized
Add a tolerance of 1 LSB, because its fused kernel differs by 1 between its x64 and arm64 builds.
Our semantics: spec/ops/quantization.md. Seeded: the family's PCG64 seed is in ops_cases.FAMILIES.
"""
import numpy as np
from onnx import TensorProto, helper

EXACT = "exact"
LSB1 = "lsb1"

RANGES = {np.uint8: (0, 255), np.int8: (-128, 127), np.uint16: (0, 65535), np.int16: (-32768, 32767)}
ONNX_CODE = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8, np.uint16: TensorProto.UINT16,
             np.int16: TensorProto.INT16}


def _name(dt):
    return np.dtype(dt).name


def _q(f, shape, dt):
    lo, hi = RANGES[dt]
    return f.ints(shape, lo, hi + 1, dt)


def _zp(f, shape, dt, spread=None):
    """A zero point of type dt; `spread` limits it around the middle of the range."""
    lo, hi = RANGES[dt]
    if spread is not None:
        mid = (lo + hi + 1) // 2
        lo, hi = max(lo, mid - spread), min(hi, mid + spread)
    return f.ints(shape, lo, hi + 1, dt)


def _scale(f, shape, lo=0.01, hi=0.2):
    return np.asarray(np.exp(f.rng.uniform(np.log(lo), np.log(hi), shape))).astype(np.float32)


# =============================================================================================
# QuantizeLinear (quantization.md section 4)


def _quantize_cases(f):
    types_by_opset = {10: [np.uint8, np.int8], 13: [np.uint8, np.int8], 19: [np.uint8, np.int8],
                      21: [np.uint8, np.int8, np.uint16, np.int16]}
    for opset, types in types_by_opset.items():
        for dt in types:
            lo, hi = RANGES[dt]
            width = hi - lo
            for i in range(6):
                rank = int(f.rng.integers(0 if i == 0 else 1, 5))
                shape = f.shape(rank, 1, 6)
                per_axis = opset >= 13 and rank >= 1 and i % 2 == 1
                if per_axis:
                    axis = int(f.rng.integers(-rank, rank))
                    n = shape[axis]
                    scale = _scale(f, (n,), 1e-3, 1.0)
                    zp = _zp(f, (n,), dt, width // 4)
                    # x spans the quantized range and beyond (saturation) on each slice.
                    bshape = [1] * rank
                    bshape[axis] = n
                    x = f.normal(shape, 1.0) * (scale.reshape(bshape) * width * 0.4)
                    attrs = dict(axis=axis)
                    tag = "%s.axis%d" % (_name(dt), axis)
                else:
                    scale = _scale(f, (), 1e-3, 1.0)
                    zp = _zp(f, (), dt, width // 4)
                    x = f.normal(shape, 1.0) * (float(scale) * width * 0.4)
                    attrs = {}
                    tag = _name(dt)
                x = np.asarray(x, np.float32)
                if i == 2:  # the zero point left out: uint8 output with zero point 0
                    if dt != np.uint8:
                        continue
                    f.add("QuantizeLinear", [("x", x), ("y_scale", scale)], attrs=attrs, opset=opset, tag=tag + ".nozp")
                    continue
                f.add("QuantizeLinear", [("x", x), ("y_scale", scale), ("y_zero_point", zp)], attrs=attrs, opset=opset,
                      const=("y_scale", "y_zero_point") if i % 3 == 0 else (), tag=tag)
            # Ties: a power-of-two scale makes x / scale exactly k + 0.5 (round half to even,
            # quantization.md section 1), around the zero point and at the saturation edges.
            scale = np.array(2.0 ** -int(f.rng.integers(0, 6)), np.float32)
            zp = _zp(f, (), dt, 3)
            k = np.arange(-8, 8, dtype=np.float64)
            ties = np.concatenate([k + 0.5, lo - float(zp) + np.array([-1.5, -0.5, 0.5]), hi - float(zp) + np.array([-0.5, 0.5, 1.5])])
            x = (ties * float(scale)).astype(np.float32)
            f.add("QuantizeLinear", [("x", x), ("y_scale", scale), ("y_zero_point", zp)], opset=opset, tag=_name(dt) + ".ties")
            # Infinities, signed zeros, huge and tiny values, subnormals (saturation).
            x = np.array([np.inf, -np.inf, 0.0, -0.0, 3.4e38, -3.4e38, 1e-45, -1e-45, 1e-30, 1e30, -1e30, 0.49, -0.51],
                         np.float32)
            f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(0.5, np.float32)), ("y_zero_point", _zp(f, (), dt, 10))],
                  opset=opset, tag=_name(dt) + ".inf")
            # A tiny scale: every quotient saturates or is huge.
            x = f.normal((3, 5), 1.0)
            f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(1e-30, np.float32)), ("y_zero_point", _zp(f, (), dt))],
                  opset=opset, tag=_name(dt) + ".tinyscale")
    # NaN (int8.md: NaN quantizes to the smallest value of the type).
    for dt in (np.uint8, np.int8, np.uint16, np.int16):
        x = np.array([np.nan, 1.0, -np.nan, 2.0, np.inf], np.float32)
        f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(0.25, np.float32)), ("y_zero_point", _zp(f, (), dt, 5))],
              opset=21, tag=_name(dt) + ".nan")
    # output_dtype (opset 21) without a zero point.
    for dt in (np.uint8, np.int8, np.uint16, np.int16):
        x = f.normal((4, 5), 40.0)
        f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(0.3, np.float32))], attrs=dict(output_dtype=ONNX_CODE[dt]),
              opset=21, tag=_name(dt) + ".output_dtype")
    # float16 input and scale (opset 19 and 21): the division in float16.
    for opset in (19, 21):
        for dt in (np.uint8, np.int8) + ((np.uint16, np.int16) if opset == 21 else ()):
            for per_axis in (False, True):
                shape = (2, 3, 4)
                if per_axis:
                    scale = _scale(f, (3,), 0.01, 0.5).astype(np.float16)
                    zp = _zp(f, (3,), dt, 20)
                    attrs = dict(axis=-2)
                else:
                    scale = np.array(0.07, np.float16)
                    zp = _zp(f, (), dt, 20)
                    attrs = {}
                x = f.normal(shape, 6.0).astype(np.float16)
                x.flat[0], x.flat[1] = np.float16(60000.0), np.float16(-60000.0)  # saturation both ways
                f.add("QuantizeLinear", [("x", x), ("y_scale", scale), ("y_zero_point", zp)], attrs=attrs, opset=opset,
                      tag=_name(dt) + ".float16" + (".axis" if per_axis else ""))
    # float16 infinities and NaN, apart: ONNX Runtime 1.31.1's float16 path turns each into the
    # smallest integer before adding the zero point, so +inf gives the type's smallest value and a
    # negative zero point wraps -inf and NaN to its largest; its float32 path saturates as the ONNX
    # text says. Listed in known_differences.tsv (quantization.md section 1).
    for dt in (np.uint8, np.int8, np.uint16, np.int16):
        for zp in ((0, 3) if dt in (np.uint8, np.uint16) else (-3, 0, 3)):
            x = np.array([np.inf, 1.0, -np.inf, np.nan, 60000.0, -60000.0], np.float16)
            f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(0.07, np.float16)), ("y_zero_point", np.array(zp, dt))],
                  opset=21, tag=_name(dt) + ".float16.nonfinite")
    # Per-axis over a long axis, axis 0 and the last axis, larger tensors (the vectorized paths).
    for dt in (np.uint8, np.int8):
        for axis in (0, -1, 1):
            shape = (7, 33, 9)
            n = shape[axis]
            scale = _scale(f, (n,), 0.005, 0.5)
            bshape = [1, 1, 1]
            bshape[axis] = n
            x = f.normal(shape, 1.0) * scale.reshape(bshape) * 100.0
            f.add("QuantizeLinear", [("x", x.astype(np.float32)), ("y_scale", scale), ("y_zero_point", _zp(f, (n,), dt, 30))],
                  attrs=dict(axis=axis), opset=13, tag=_name(dt) + ".wide")
        x = f.normal((1031,), 30.0)
        f.add("QuantizeLinear", [("x", x), ("y_scale", np.array(0.11, np.float32)), ("y_zero_point", _zp(f, (), dt, 30))],
              opset=13, tag=_name(dt) + ".long")


# =============================================================================================
# DequantizeLinear (quantization.md section 5)


def _dequantize_cases(f):
    types_by_opset = {10: [np.uint8, np.int8, np.int32], 13: [np.uint8, np.int8, np.int32],
                      19: [np.uint8, np.int8, np.int32], 21: [np.uint8, np.int8, np.uint16, np.int16, np.int32]}
    for opset, types in types_by_opset.items():
        for dt in types:
            for i in range(5):
                rank = int(f.rng.integers(0 if i == 0 else 1, 5))
                shape = f.shape(rank, 1, 6)
                if dt == np.int32:
                    x = f.ints(shape, -2**31, 2**31, np.int32) if i % 2 else f.ints(shape, -100000, 100000, np.int32)
                else:
                    x = _q(f, shape, dt)
                per_axis = opset >= 13 and rank >= 1 and i % 2 == 0
                if per_axis:
                    axis = int(f.rng.integers(-rank, rank))
                    n = shape[axis]
                    sshape, attrs, tag = (n,), dict(axis=axis), "%s.axis%d" % (_name(dt), axis)
                else:
                    sshape, attrs, tag = (), {}, _name(dt)
                scale = _scale(f, sshape, 1e-4, 2.0)
                # int32 zero points are 0 in the ONNX schema's examples (the bias of a QLinearConv);
                # ONNX Runtime accepts only 0 for them, so they are 0 or absent here.
                if dt == np.int32:
                    zp = np.zeros(sshape, np.int32) if i % 2 else None
                else:
                    zp = _zp(f, sshape, dt) if i != 3 else None
                f.add("DequantizeLinear", [("x", x), ("x_scale", scale), ("x_zero_point", zp)], attrs=attrs, opset=opset,
                      const=("x_scale", "x_zero_point") if i == 4 else (), tag=tag)
            # Extreme scales: products that overflow to infinity, subnormal results, -0.
            if dt != np.int32:
                lo, hi = RANGES[dt]
                x = np.array([lo, hi, lo + 1, (lo + hi) // 2, hi - 1], dt)
            else:
                x = np.array([-2**31, 2**31 - 1, 0, 16777217, -16777219], np.int32)
            for s in (3.0e38, 1e-45, -0.0, 1e-40):
                zp = np.array(RANGES[dt][0] + 1 if dt != np.int32 else 0, dt)
                f.add("DequantizeLinear", [("x", x), ("x_scale", np.array(s, np.float32)), ("x_zero_point", zp)], opset=opset,
                      tag=_name(dt) + ".extreme")
    # float16 scales (opset 19 and 21): float16 output.
    for opset in (19, 21):
        for dt in (np.uint8, np.int8) + ((np.uint16, np.int16) if opset == 21 else ()):
            shape = (3, 4, 2)
            x = _q(f, shape, dt)
            f.add("DequantizeLinear", [("x", x), ("x_scale", np.array(0.013, np.float16)), ("x_zero_point", _zp(f, (), dt))],
                  opset=opset, tag=_name(dt) + ".float16")
            f.add("DequantizeLinear", [("x", x), ("x_scale", _scale(f, (4,), 0.001, 3.0).astype(np.float16)),
                                       ("x_zero_point", _zp(f, (4,), dt))], attrs=dict(axis=1), opset=opset,
                  tag=_name(dt) + ".float16.axis")
    # Larger tensors (the vectorized paths): per-tensor and per-axis, the longest axis first and last.
    for dt in (np.uint8, np.int8):
        x = _q(f, (1029,), dt)
        f.add("DequantizeLinear", [("x", x), ("x_scale", np.array(0.021, np.float32)), ("x_zero_point", _zp(f, (), dt))],
              opset=13, tag=_name(dt) + ".long")
        for axis in (0, 2):
            shape = (9, 5, 37)
            x = _q(f, shape, dt)
            n = shape[axis]
            f.add("DequantizeLinear", [("x", x), ("x_scale", _scale(f, (n,))), ("x_zero_point", _zp(f, (n,), dt))],
                  attrs=dict(axis=axis), opset=13, tag=_name(dt) + ".wide")


# =============================================================================================
# DynamicQuantizeLinear (quantization.md section 6)


def _dynamic_cases(f):
    outs = ["y", "y_scale", "y_zero_point"]
    for i in range(14):
        shape = f.shape(int(f.rng.integers(1, 4)), 1, 9)
        x = f.normal(shape, float(f.rng.choice([0.01, 1.0, 7.0, 300.0]))) + float(f.rng.normal(0, 0.5))
        f.add("DynamicQuantizeLinear", [("x", x)], opset=11, outputs=outs)
    specials = {
        "allzero": np.zeros((3, 4), np.float32),
        "negzero": np.array([-0.0, 0.0, -0.0], np.float32),
        "constpos": np.full((5,), 2.75, np.float32),
        "constneg": np.full((2, 3), -0.3, np.float32),
        "one": np.array([4.0], np.float32),
        "negonly": -np.abs(f.normal((4, 6), 3.0)) - 0.5,
        "posonly": np.abs(f.normal((4, 6), 3.0)) + 0.5,
        "large": f.normal((6, 7), 1e30),
        "largepos": np.abs(f.normal((6, 7), 1e37)),
        "huge": np.array([3.0e38, -3.0e38, 1.0, 0.0], np.float32),
        "small": f.normal((5, 5), 1e-3),
        "tiny": f.normal((5, 5), 1e-20),
        "wide": f.normal((3, 257), 2.0) + 1.0,
        "long": f.normal((1027,), 5.0) - 2.0,
        "ties": np.array([0.0, 255.0, 127.5, 0.5, 1.5, 2.5, 100.5, 254.5], np.float32),
        "tiesneg": np.array([-255.0, 0.0, -0.5, -1.5, -127.5, -200.5], np.float32),
        "skewed": np.concatenate([np.array([-0.01], np.float32), np.abs(f.normal((20,), 10.0))]),
        "skewedneg": np.concatenate([np.array([0.013], np.float32), -np.abs(f.normal((20,), 10.0))]),
    }
    for tag, x in specials.items():
        f.add("DynamicQuantizeLinear", [("x", np.asarray(x, np.float32))], opset=11, outputs=outs, tag=tag)


# =============================================================================================
# MatMulInteger (quantization.md sections 7 and 8)


INT8_TYPES = (np.uint8, np.int8)
PAIRS = [(a, b) for a in INT8_TYPES for b in INT8_TYPES]


def _matmul_shapes(f, i):
    """A-shape, B-shape, M, N for case i: 2-D, batched, broadcast, and 1-D operands."""
    m, k, n = int(f.rng.integers(1, 9)), int(f.rng.integers(1, 40)), int(f.rng.integers(1, 9))
    kind = i % 6
    if kind == 0:
        return (m, k), (k, n), m, n
    if kind == 1:
        b = int(f.rng.integers(1, 4))
        return (b, m, k), (b, k, n), m, n
    if kind == 2:
        return (2, 1, m, k), (3, k, n), m, n
    if kind == 3:
        return (m, k), (2, k, n), m, n
    if kind == 4:
        return (k,), (k, n), None, n
    k = int(f.rng.integers(100, 320))
    return (m, k), (k, n), m, n


def _matmul_integer_cases(f):
    for ta, tb in PAIRS:
        for i in range(12):
            sa, sb, m, n = _matmul_shapes(f, i)
            a, b = _q(f, sa, ta), _q(f, sb, tb)
            # Zero points: none, per tensor (rank 0 and 1), per column of B. ONNX Runtime refuses
            # a zero point per row of A ("input1 zero point must be a scalar or 1D tensor of size
            # 1") and a per-column one for a batched B, so those forms have no oracle here.
            zkind = i % 4
            za = zb = None
            if zkind == 1:
                za, zb = _zp(f, (), ta), _zp(f, (), tb)
            elif zkind == 2:
                za = _zp(f, (), ta)
                zb = _zp(f, (n,), tb) if len(sb) == 2 else _zp(f, (1,), tb)
            elif zkind == 3:
                za, zb = _zp(f, (1,), ta), _zp(f, (n,), tb) if len(sb) == 2 else None
            inputs = [("A", a), ("B", b), ("a_zero_point", za), ("b_zero_point", zb)]
            f.add("MatMulInteger", inputs, opset=10, const=("B", "b_zero_point") if i % 2 else (),
                  tag="%s_%s" % (_name(ta), _name(tb)))
        # Extremes: every operand at its most negative (or largest) value against the opposite
        # zero point, K = 300 (the largest products).
        k = 300
        a = np.full((3, k), RANGES[ta][0], ta)
        b = np.full((k, 4), RANGES[tb][1], tb)
        a[1] = RANGES[ta][1]
        f.add("MatMulInteger", [("A", a), ("B", b), ("a_zero_point", np.array(RANGES[ta][1], ta)),
                                ("b_zero_point", np.array(RANGES[tb][0], tb))], opset=10, tag="%s_%s.extreme" % (_name(ta), _name(tb)))


# =============================================================================================
# ConvInteger and QLinearConv (quantization.md sections 9 and 12)


def _conv_geometry(f, rank, i):
    """Input shape, weight shape, attributes, output channels, for a convolution case."""
    g = [1, 1, 2, 3][i % 4]
    cin = g * int(f.rng.integers(1, 4))
    cout = g * int(f.rng.integers(1, 4))
    if i % 7 == 5:  # depthwise
        g = cin = cout = int(f.rng.integers(2, 9))
    spatial = tuple(int(f.rng.integers(3, 9)) for _ in range(rank))
    kernel = tuple(int(f.rng.integers(1, 4)) for _ in range(rank))
    attrs = dict(group=g)
    if i % 3 != 0:
        attrs["pads"] = [int(f.rng.integers(0, kk)) if kk > 1 else 0 for kk in kernel] * 2
        attrs["pads"][rank:] = [int(f.rng.integers(0, kk)) if kk > 1 else 0 for kk in kernel]
    if i % 2 == 1:
        attrs["strides"] = [int(f.rng.integers(1, 3)) for _ in range(rank)]
    if i % 5 == 2:
        attrs["dilations"] = [2] * rank
    if i % 11 == 7:
        attrs["auto_pad"] = "SAME_UPPER"
        attrs.pop("pads", None)
        attrs.pop("dilations", None)
    batch = int(f.rng.integers(1, 3))
    return (batch, cin) + spatial, (cout, cin // g) + kernel, attrs, cout


def _conv_integer_cases(f):
    for tx, tw in PAIRS:
        for rank in (1, 2):
            for i in range(9):
                xs, ws, attrs, cout = _conv_geometry(f, rank, i)
                x, w = _q(f, xs, tx), _q(f, ws, tw)
                zx = _zp(f, (), tx) if i % 3 != 2 else None
                zw = _zp(f, (), tw) if i % 4 != 3 else None
                f.add("ConvInteger", [("x", x), ("w", w), ("x_zero_point", zx), ("w_zero_point", zw)], attrs=attrs, opset=10,
                      const=("w", "w_zero_point") if i % 2 else (), tag="%s_%s.%dd" % (_name(tx), _name(tw), rank))
    # Wider channels (several product tiles).
    for tx, tw in PAIRS:
        x = _q(f, (1, 16, 9, 10), tx)
        w = _q(f, (24, 16, 3, 3), tw)
        f.add("ConvInteger", [("x", x), ("w", w), ("x_zero_point", _zp(f, (), tx)), ("w_zero_point", _zp(f, (), tw))],
              attrs=dict(pads=[1, 1, 1, 1]), opset=10, const=("w",), tag="%s_%s.wide" % (_name(tx), _name(tw)))


# The (x, w) pairs ONNX Runtime 1.31.1 implements for QLinearConv and QLinearMatMul (it has no
# kernel for an int8 first operand with a uint8 second one); the output has the first's type.
ORT_PAIRS = [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)]


def _qlinear_conv_cases(f):
    for tx, tw in ORT_PAIRS:
        for rank in (1, 2):
            for i in range(11):
                xs, ws, attrs, cout = _conv_geometry(f, rank, i)
                x, w = _q(f, xs, tx), _q(f, ws, tw)
                per_channel = i % 2 == 0
                sx = _scale(f, (), 0.01, 0.1)
                sw = _scale(f, (cout,) if per_channel else (), 0.002, 0.05)
                kvol = int(np.prod(ws[1:]))
                sy = np.array(float(sx) * float(np.max(sw)) * 30.0 * np.sqrt(kvol) * float(f.rng.uniform(0.5, 2.0)),
                              np.float32)
                zx = _zp(f, (), tx)
                zw = _zp(f, (cout,) if per_channel else (), tw, 0 if tw == np.int8 and per_channel else None)
                ty = tx
                zy = _zp(f, (), ty, 40)
                bias = f.ints((cout,), -20000, 20000, np.int32) if i % 3 != 1 else None
                inputs = [("x", x), ("x_scale", sx), ("x_zero_point", zx), ("w", w), ("w_scale", sw), ("w_zero_point", zw),
                          ("y_scale", sy), ("y_zero_point", zy), ("B", bias)]
                f.add("QLinearConv", inputs, attrs=attrs, opset=10,
                      const=("w", "w_scale", "w_zero_point", "B") if i % 4 < 2 else (),
                      tag="%s_%s.%dd%s" % (_name(tx), _name(tw), rank, ".perchannel" if per_channel else ""))
    # Power-of-two scales: requantization ties (round half to even, quantization.md section 10).
    for tx in INT8_TYPES:  # with int8 weights: both ORT pairs
        x = _q(f, (1, 4, 6, 6), tx)
        w = _q(f, (8, 4, 3, 3), np.int8)
        inputs = [("x", x), ("x_scale", np.array(0.5, np.float32)), ("x_zero_point", _zp(f, (), tx, 10)),
                  ("w", w), ("w_scale", np.array([0.25, 0.5] * 4, np.float32)), ("w_zero_point", np.zeros((8,), np.int8)),
                  ("y_scale", np.array(64.0, np.float32)), ("y_zero_point", _zp(f, (), tx, 10)),
                  ("B", f.ints((8,), -50, 50, np.int32))]
        f.add("QLinearConv", inputs, attrs=dict(pads=[1, 1, 1, 1]), opset=10, const=("w",), tag=_name(tx) + ".ties")
    # Wider channels and a depthwise network-like layer.
    for tx in INT8_TYPES:
        x = _q(f, (1, 16, 10, 11), tx)
        for dw in (False, True):
            cout, cpg, g = (16, 1, 16) if dw else (32, 16, 1)
            w = _q(f, (cout, cpg, 3, 3), np.int8)
            sw = _scale(f, (cout,), 0.002, 0.02)
            inputs = [("x", x), ("x_scale", np.array(0.05, np.float32)), ("x_zero_point", _zp(f, (), tx)),
                      ("w", w), ("w_scale", sw), ("w_zero_point", np.zeros((cout,), np.int8)),
                      ("y_scale", np.array(0.05 * 0.01 * 12 * (3 if dw else 12), np.float32)), ("y_zero_point", _zp(f, (), tx, 30)),
                      ("B", f.ints((cout,), -3000, 3000, np.int32))]
            f.add("QLinearConv", inputs, attrs=dict(group=g, pads=[1, 1, 1, 1], strides=[1 + int(dw), 1]), opset=10,
                  const=("w", "w_scale", "w_zero_point", "B"), tag=_name(tx) + (".depthwise" if dw else ".wide"))


# =============================================================================================
# QLinearMatMul (quantization.md sections 10 and 11)


def _qlinear_matmul_cases(f):
    for opset in (10, 21):
        for ta, tb in ORT_PAIRS:
            ty = ta
            for i in range(8 if opset == 10 else 6):
                sa, sb, m, n = _matmul_shapes(f, i)
                k = sa[-1]
                a, b = _q(f, sa, ta), _q(f, sb, tb)
                # Per column of b only for a 2-D b (ONNX Runtime refuses it for a batched b).
                per_col = i % 2 == 1 and len(sb) == 2
                sca = _scale(f, (), 0.01, 0.1)
                scb = _scale(f, (n,) if per_col else (), 0.002, 0.05)
                scy = np.array(float(sca) * float(np.max(scb)) * 30.0 * np.sqrt(k) * float(f.rng.uniform(0.5, 2.0)),
                               np.float32)
                za = _zp(f, (), ta)
                zb = _zp(f, (n,) if per_col else (), tb)
                zy = _zp(f, (), ty, 40)
                inputs = [("a", a), ("a_scale", sca), ("a_zero_point", za), ("b", b), ("b_scale", scb),
                          ("b_zero_point", zb), ("y_scale", scy), ("y_zero_point", zy)]
                f.add("QLinearMatMul", inputs, opset=opset, const=("b", "b_scale", "b_zero_point") if i % 2 == 0 else (),
                      tag="%s_%s_%s%s" % (_name(ta), _name(tb), _name(ty), ".percol" if per_col else ""))
    # Requantization ties (power-of-two scales) and saturation on both sides.
    for ta, tb in ORT_PAIRS:
        a, b = _q(f, (5, 24), ta), _q(f, (24, 7), tb)
        inputs = [("a", a), ("a_scale", np.array(0.5, np.float32)), ("a_zero_point", _zp(f, (), ta, 5)),
                  ("b", b), ("b_scale", np.array(0.25, np.float32)), ("b_zero_point", _zp(f, (), tb, 5)),
                  ("y_scale", np.array(16.0, np.float32)), ("y_zero_point", np.array(RANGES[ta][0] + 128, ta))]
        f.add("QLinearMatMul", inputs, opset=10, tag="%s_%s.ties" % (_name(ta), _name(tb)))
        inputs[6] = ("y_scale", np.array(0.5, np.float32))
        f.add("QLinearMatMul", inputs, opset=10, tag="%s_%s.saturate" % (_name(ta), _name(tb)))
    # Larger products (several kernel tiles), K of a few hundred.
    for ta, tb in ORT_PAIRS:
        m, k, n = 37, 260, 70
        a, b = _q(f, (m, k), ta), _q(f, (k, n), tb)
        scb = _scale(f, (n,), 0.002, 0.02)
        inputs = [("a", a), ("a_scale", np.array(0.02, np.float32)), ("a_zero_point", _zp(f, (), ta)),
                  ("b", b), ("b_scale", scb), ("b_zero_point", _zp(f, (n,), tb, 10)),
                  ("y_scale", np.array(0.02 * 0.01 * 40 * np.sqrt(k), np.float32)), ("y_zero_point", _zp(f, (), ta, 20))]
        f.add("QLinearMatMul", inputs, opset=21, const=("b", "b_scale", "b_zero_point"), tag="%s_%s.large" % (_name(ta), _name(tb)))


# =============================================================================================
# qdq_add: DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear, which ONNX Runtime
# fuses into one quantized Add at ORT_ENABLE_ALL. Our library runs the graph as written (int8.md,
# "Graph rewrites": the qdq pass handles Conv and Gemm only), and the case's tolerance is 1 LSB
# (int8.md, "Product kernel", last paragraph).


def _qdq_add_cases(f):
    for dt in INT8_TYPES:
        for i in range(16):
            sa, sb = f.bcast_shapes()
            if i < 4:
                sa, sb = (2, 3, 17), (2, 3, 17)
            a, b = _q(f, sa, dt), _q(f, sb, dt)
            s_a, s_b = _scale(f, (), 0.01, 0.2), _scale(f, (), 0.01, 0.2)
            s_y = np.array((float(s_a) + float(s_b)) * float(f.rng.uniform(0.4, 1.5)), np.float32)
            z_a, z_b, z_y = _zp(f, (), dt, 60), _zp(f, (), dt, 60), _zp(f, (), dt, 60)
            nodes = [helper.make_node("DequantizeLinear", ["a", "a_scale", "a_zero_point"], ["fa"], name="n0"),
                     helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero_point"], ["fb"], name="n1"),
                     helper.make_node("Add", ["fa", "fb"], ["fy"], name="n2"),
                     helper.make_node("QuantizeLinear", ["fy", "y_scale", "y_zero_point"], ["y"], name="n3")]
            inputs = [("a", a), ("a_scale", s_a), ("a_zero_point", z_a), ("b", b), ("b_scale", s_b), ("b_zero_point", z_b),
                      ("y_scale", s_y), ("y_zero_point", z_y)]
            f.add("qdq_add", inputs, opset=13, outputs=["y"], tol=LSB1, nodes=nodes,
                  const=("a_scale", "a_zero_point", "b_scale", "b_zero_point", "y_scale", "y_zero_point"), tag=_name(dt))


# =============================================================================================
# Products tall enough for two threads: the integer product kernel splits its work into fixed
# blocks of 48 rows (int8.md "Product kernel", Mc), so these cases give the optimized engine's
# two-thread runs (oracle_cases_test) more than one block to share. (DequantizeLinear's chunks of
# 16384 elements would need a case of 160 KB; its diff test covers two threads.)


def _split_cases(f):
    for ta, tb in ((np.uint8, np.int8), (np.int8, np.int8)):
        m, k, n = 100 + int(f.rng.integers(0, 8)), 70, 30
        f.add("MatMulInteger", [("A", _q(f, (m, k), ta)), ("B", _q(f, (k, n), tb)), ("a_zero_point", _zp(f, (), ta)),
                                ("b_zero_point", _zp(f, (n,), tb))], opset=10, const=("B",),
              tag="%s_%s.split" % (_name(ta), _name(tb)))
    for ta, tb in ORT_PAIRS:
        m, k, n = 120, 90, 40
        scb = _scale(f, (n,), 0.002, 0.05)
        inputs = [("a", _q(f, (m, k), ta)), ("a_scale", np.array(0.03, np.float32)), ("a_zero_point", _zp(f, (), ta)),
                  ("b", _q(f, (k, n), tb)), ("b_scale", scb), ("b_zero_point", _zp(f, (n,), tb, 10)),
                  ("y_scale", np.array(0.03 * 0.05 * 12 * np.sqrt(k), np.float32)), ("y_zero_point", _zp(f, (), ta, 20))]
        f.add("QLinearMatMul", inputs, opset=10, const=("b", "b_scale", "b_zero_point"),
              tag="%s_%s.split" % (_name(ta), _name(tb)))
    for tx, tw in ((np.uint8, np.int8), (np.uint8, np.uint8)):
        f.add("ConvInteger", [("x", _q(f, (1, 16, 8, 9), tx)), ("w", _q(f, (64, 16, 3, 3), tw)),
                              ("x_zero_point", _zp(f, (), tx)), ("w_zero_point", _zp(f, (), tw))],
              attrs=dict(pads=[1, 1, 1, 1]), opset=10, const=("w",), tag="%s_%s.split" % (_name(tx), _name(tw)))
    for tx, g in ((np.uint8, 1), (np.int8, 2)):
        cout, cin = 112, 8 * g
        inputs = [("x", _q(f, (1, cin, 7, 8), tx)), ("x_scale", np.array(0.04, np.float32)), ("x_zero_point", _zp(f, (), tx)),
                  ("w", _q(f, (cout, 8, 3, 3), np.int8)), ("w_scale", _scale(f, (cout,), 0.002, 0.02)),
                  ("w_zero_point", np.zeros((cout,), np.int8)), ("y_scale", np.array(0.04 * 0.01 * 8 * 9, np.float32)),
                  ("y_zero_point", _zp(f, (), tx, 30)), ("B", f.ints((cout,), -3000, 3000, np.int32))]
        f.add("QLinearConv", inputs, attrs=dict(group=g, pads=[1, 1, 1, 1]), opset=10, const=("w", "w_scale", "B"),
              tag="%s.split" % _name(tx))


def gen_quant(f):
    _quantize_cases(f)
    _dequantize_cases(f)
    _dynamic_cases(f)
    _matmul_integer_cases(f)
    _conv_integer_cases(f)
    _qlinear_conv_cases(f)
    _qlinear_matmul_cases(f)
    _qdq_add_cases(f)
    _split_cases(f)
