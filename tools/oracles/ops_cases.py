#!/usr/bin/env python3
"""Operator oracle cases (issue 5): randomized single-node models run by ONNX Runtime 1.31.1.

For every operator family this script builds small seeded random cases (an ONNX model with one node,
its input tensors), runs each with ONNX Runtime as a black box (spec-source oracles.md, "Pins";
1 intra-op thread) and stores the model bytes, the inputs and ONNX Runtime's outputs as one cereal
portable-binary archive per family in tests/oracles/cases/<family>.bin. The C++ test
tests/unit/oracle_cases_test.cpp reads them and runs every case in both engines and both modes.
The format is documented in tests/oracles/README.md.

A case ONNX Runtime refuses (session creation or run fails) is not written: the script prints the
case and the reason. Everything is seeded, so running the script again on the same machine writes
the same bytes (ONNX Runtime's last bits may differ on another CPU class, oracles.md "Reference
outputs"). Regenerate only on purpose.

Usage: build/venv/bin/python tools/oracles/ops_cases.py [--out DIR] [--family NAME ...]
"""
import argparse
import os
import struct
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from ops_cases_attention import gen_attention
from ops_cases_breadth import gen_breadth
from ops_cases_breadth_ops import gen_breadth_ops
from ops_cases_newattn import gen_newattn
from ops_cases_exactloss import gen_exactloss
from ops_cases_float8 import gen_float8
from ops_cases_quant import gen_quant
from ops_cases_strings import gen_strings
from ops_cases_subbyte import gen_subbyte

FORMAT_VERSION = 1
EXACT = "exact"
SCALED = "scaled1e-4"

CODES = {
    np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.uint16): 4,
    np.dtype(np.int16): 5, np.dtype(np.int32): 6, np.dtype(np.int64): 7, np.dtype(np.bool_): 9,
    np.dtype(np.float16): 10, np.dtype(np.float64): 11, np.dtype(np.uint32): 12, np.dtype(np.uint64): 13,
    np.dtype(object): 8,  # STRING: data is each element's u64 length then its UTF-8 (or raw) bytes
}

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min

# ---------------------------------------------------------------------------------------------
# cereal PortableBinaryOutputArchive, written by hand: one byte (1 = little-endian data), then the
# fields in serialize() order; sizes of strings and vectors are uint64 size tags; a vector of an
# arithmetic type is its elements' bytes; a std::string is its bytes. No names, no versions.


def _u64(n):
    return struct.pack("<Q", n)


def _str(b):
    if isinstance(b, str):
        b = b.encode()
    return _u64(len(b)) + b


def _i32(n):
    return struct.pack("<i", n)


def _string_bytes(arr):
    out = []
    for e in arr.reshape(-1):
        b = e.encode() if isinstance(e, str) else bytes(e)
        out.append(_u64(len(b)) + b)
    return b"".join(out)


def _tensor(name, arr):
    arr = np.asarray(arr, order="C")  # not ascontiguousarray: it makes rank 0 into rank 1
    if arr.dtype == np.dtype(object):
        data = _string_bytes(arr)
    else:
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    shape = [int(d) for d in arr.shape]
    return _str(name) + _i32(CODES[arr.dtype]) + _u64(len(shape)) + struct.pack("<%dq" % len(shape), *shape) + _str(data)


def archive_bytes(family, cases):
    out = [b"\x01", struct.pack("<I", FORMAT_VERSION), _str(family), _str(ort.__version__), _u64(len(cases))]
    for c in cases:
        out += [_str(c["name"]), _str(c["op"]), _i32(c["opset"]), _str(c["tolerance"]), _str(c["model"])]
        out.append(_u64(len(c["inputs"])))
        out += [_tensor(n, a) for n, a in c["inputs"]]
        out.append(_u64(len(c["outputs"])))
        out += [_tensor(n, a) for n, a in c["outputs"]]
    return b"".join(out)


# ---------------------------------------------------------------------------------------------


class Family:
    def __init__(self, name, seed, reference_fallback=False):
        self.name = name
        self.reference_fallback = reference_fallback
        self.rng = np.random.default_rng(seed)
        self.cases = []
        self.dropped = []
        self.counter = {}

    def add(self, op, inputs, attrs=None, opset=21, outputs=1, tol=EXACT, const=(), tag="", onnxref=False, nodes=None,
            domains=()):
        """inputs: list of (name, array or None); None leaves an optional input out. Names in
        `const` become initializers. outputs: a count or a list of names ("" skips an output).
        onnxref (families with reference_fallback only): skip ONNX Runtime and take the onnx
        reference evaluator, for a case where ONNX Runtime departs from the operator text.
        nodes: the graph's nodes for a case of several nodes (then `op` only names the case and
        `attrs` is unused; the graph outputs are `outputs`). domains: (domain, version) pairs imported
        beside the default domain (the training optimizers' ai.onnx.preview.training)."""
        attrs = attrs or {}
        inputs = [(n, None if a is None else np.asarray(a)) for n, a in inputs]
        k = self.counter.get(op, 0)
        self.counter[op] = k + 1
        name = "%s.%s.%03d%s" % (self.name, op, k, ("." + tag) if tag else "")
        in_names = [n if a is not None else "" for n, a in inputs]
        while in_names and in_names[-1] == "":
            in_names.pop()
        out_names = ["y%d" % i for i in range(outputs)] if isinstance(outputs, int) else list(outputs)
        if nodes is None:
            nodes = [helper.make_node(op, in_names, out_names, name="n0", **attrs)]
        graph_inputs, inits, feeds = [], [], []
        for n, a in inputs:
            if a is None:
                continue
            if n in const:
                inits.append(onnx.numpy_helper.from_array(a, n))
            else:
                graph_inputs.append(helper.make_tensor_value_info(n, CODES[a.dtype], list(a.shape)))
                feeds.append((n, a))
        used_outs = [o for o in out_names if o]
        graph = helper.make_graph(nodes, "case", graph_inputs, [helper.make_value_info(o, onnx.TypeProto()) for o in used_outs],
                                  initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] +
                                  [helper.make_opsetid(d, v) for d, v in domains], producer_name="ops_cases.py")
        model.ir_version = 10
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
            for o, io in zip(model.graph.output, inferred.graph.output):
                o.type.CopyFrom(io.type)
                o.type.tensor_type.ClearField("shape")
            for o in model.graph.output:  # operators defined as functions (GroupNormalization)
                if o.type.tensor_type.elem_type == 0:
                    o.type.tensor_type.elem_type = CODES[feeds[0][1].dtype] if feeds else TensorProto.FLOAT
            so = ort.SessionOptions()
            so.intra_op_num_threads = 1
            so.inter_op_num_threads = 1
            so.log_severity_level = 4
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL  # its default, stated
            try:
                if onnxref:
                    raise RuntimeError("the onnx reference evaluator is asked for")
                sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
                results = sess.run(used_outs, {n: a for n, a in feeds})
            except Exception:
                # ONNX Runtime has no double kernel for several activations (Elu, Erf, Hardmax,
                # ...): families that allow it take the onnx package's reference evaluator (numpy
                # code written from the operator text) instead, and the case name says so.
                if not self.reference_fallback:
                    raise
                results = ReferenceEvaluator(model).run(used_outs, {n: a for n, a in feeds})
                name += ".onnxref"
        except Exception as e:  # ONNX Runtime (or the checker) refuses the case: not generated
            msg = str(e).strip().splitlines()[0][:400] if str(e).strip() else type(e).__name__
            self.dropped.append((name, msg))
            return False
        outs = []
        for o, r in zip(used_outs, results):
            r = np.asarray(r)
            if r.dtype not in CODES:
                self.dropped.append((name, "output dtype %s" % r.dtype))
                return False
            outs.append((o, r))
        self.cases.append(dict(name=name, op=op, opset=opset, tolerance=tol, model=model.SerializeToString(),
                               inputs=feeds, outputs=outs))
        return True

    # -- data helpers --------------------------------------------------------------------------
    def normal(self, shape, scale=1.0, dtype=np.float32):
        return np.asarray(scale * self.rng.standard_normal(shape)).astype(dtype)

    def special(self, shape, p=0.35, dtype=np.float32, nan=True, inf=True):
        a = self.normal(shape, 2.0).astype(np.float32)
        pool = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, 1.1754944e-38, 3.4e38, -3.4e38, 1e30, -1e-30,
                0.5, -0.5, 1.5, -2.5, 2.5, 1.0, -1.0, 100.0, -100.0]
        if inf:
            pool += [np.inf, -np.inf]
        if nan:
            pool += [np.nan]
        pool = np.array(pool, dtype=np.float32)
        mask = self.rng.random(a.shape) < p
        a[mask] = pool[self.rng.integers(0, len(pool), a.shape)][mask]
        return a.astype(dtype)

    def ints(self, shape, lo, hi, dtype=np.int32):
        return np.asarray(self.rng.integers(lo, hi, shape)).astype(dtype)

    def shape(self, rank, lo=1, hi=4):
        return tuple(int(x) for x in self.rng.integers(lo, hi + 1, rank))

    def bcast_shapes(self, n=2, max_rank=4):
        r = int(self.rng.integers(0, max_rank + 1))
        out = self.shape(r, 1, 4)
        shapes = []
        for _ in range(n):
            ri = int(self.rng.integers(0, r + 1))
            s = list(out[r - ri:])
            for d in range(ri):
                if self.rng.random() < 0.35:
                    s[d] = 1
            shapes.append(tuple(s))
        return shapes


# =============================================================================================
# Element-wise


def gen_elementwise(f):
    bin_float = ["Add", "Sub", "Mul", "Div", "Max", "Min"]
    cmp_ops = ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]
    for op in bin_float:
        for i in range(8):
            sa, sb = f.bcast_shapes()
            f.add(op, [("a", f.special(sa)), ("b", f.special(sb))], tag="special")
        for dt in (np.int32, np.int64):
            sa, sb = f.bcast_shapes()
            a = f.ints(sa, -1000, 1000, dt)
            b = f.ints(sb, -50, 50, dt)
            if op == "Div":
                b[b == 0] = 7
            f.add(op, [("a", a), ("b", b)], tag=np.dtype(dt).name)
    # Wrap-around on int32 (spec-source ops-elementwise.md, "Integers").
    big = np.array([2147483647, -2147483648, 2147483000, -5, 65536], dtype=np.int32)
    f.add("Add", [("a", big), ("b", np.array([1, -1, 1000, 7, 65536], dtype=np.int32))], tag="wrap")
    f.add("Mul", [("a", big), ("b", np.array([2, 3, 5, -7, 65536], dtype=np.int32))], tag="wrap")
    f.add("Sub", [("a", big), ("b", np.array([-1, 1, -1000, 7, 3], dtype=np.int32))], tag="wrap")
    # Variadic Max/Min with three inputs; signed zeros.
    for op in ("Max", "Min"):
        s = f.bcast_shapes(3)
        f.add(op, [("a", f.special(s[0], nan=False)), ("b", f.special(s[1], nan=False)), ("c", f.special(s[2], nan=False))],
              tag="three")
        f.add(op, [("a", np.array([0.0, -0.0, -0.0, 0.0, 1.0], np.float32)), ("b", np.array([-0.0, 0.0, -0.0, 0.0, 1.0], np.float32))],
              tag="zeros")
    for op in cmp_ops:
        for i in range(3):
            sa, sb = f.bcast_shapes()
            a = f.special(sa)
            b = f.special(sb)
            if i == 0 and len(sa) == len(sb) and sa == sb:
                b = a.copy()
            f.add(op, [("a", a), ("b", b)], tag="special")
        sa, sb = f.bcast_shapes()
        f.add(op, [("a", f.ints(sa, -3, 3, np.int64)), ("b", f.ints(sb, -3, 3, np.int64))], tag="int64")
    for i in range(4):
        sa, sb = f.bcast_shapes()
        base = np.abs(f.normal(sa, 2.0)) + 0.1
        if i == 0:
            base = f.special(sa)
        f.add("Pow", [("a", base), ("b", f.normal(sb, 1.5))], tol=SCALED)
    f.add("Pow", [("a", f.normal((3, 4), 3.0)), ("b", np.array(2.0, np.float32))], tol=SCALED, tag="square")
    f.add("Pow", [("a", f.normal((3, 4), 3.0)), ("b", np.array([0.0, 1.0, 2.0, 3.0], np.float32))], tol=SCALED,
          tag="intexp")
    # Unary.
    exact_unary = ["Abs", "Neg", "Sqrt", "Relu", "Floor", "Ceil", "Round"]
    for op in exact_unary:
        for i in range(2):
            f.add(op, [("x", f.special(f.shape(int(f.rng.integers(0, 5)))))], tag="special")
    f.add("Round", [("x", np.array([0.5, 1.5, 2.5, -0.5, -1.5, -0.4, 0.49999997, 8388609.0, -2.5000002], np.float32))],
          tag="halves")
    for dt in (np.int32, np.int64):
        f.add("Abs", [("x", f.ints((3, 5), -100, 100, dt))], tag=np.dtype(dt).name)
        f.add("Neg", [("x", f.ints((3, 5), -100, 100, dt))], tag=np.dtype(dt).name)
    f.add("Relu", [("x", f.ints((2, 7), -9, 9, np.int32))], tag="int32")
    scaled_unary = ["Exp", "Log", "Tanh", "Sigmoid", "Erf", "HardSigmoid", "HardSwish"]
    for op in scaled_unary:
        f.add(op, [("x", f.normal(f.shape(3), 3.0))], tol=SCALED)
        f.add(op, [("x", f.normal(f.shape(2), 0.5))], tol=SCALED)
        f.add(op, [("x", f.special((5, 7), p=0.25))], tol=SCALED, tag="special")
    f.add("Exp", [("x", np.linspace(-100, 88, 60).astype(np.float32))], tol=SCALED, tag="range")
    f.add("Log", [("x", np.abs(f.normal((40,), 5.0)) + 1e-3)], tol=SCALED, tag="positive")
    f.add("LeakyRelu", [("x", f.special((4, 6)))])
    f.add("LeakyRelu", [("x", f.special((3, 5)))], attrs=dict(alpha=0.3))
    f.add("HardSigmoid", [("x", f.normal((4, 5), 4.0))], attrs=dict(alpha=0.3, beta=0.4), tol=SCALED)
    for approx in ("none", "tanh"):
        f.add("Gelu", [("x", f.normal((4, 8), 3.0))], attrs=dict(approximate=approx), tol=SCALED)
        f.add("Gelu", [("x", f.special((4, 8), p=0.2, inf=False))], attrs=dict(approximate=approx), tol=SCALED,
              tag="special")
        f.add("Gelu", [("x", np.array([-np.inf, np.inf, 0.0, -0.0, 1.0, -1.0], np.float32))], attrs=dict(approximate=approx),
              tol=SCALED, tag="inf")
    # Clip with bounds as inputs (opset 11+), one omitted, lo > hi.
    for i in range(3):
        f.add("Clip", [("x", f.special((3, 6))), ("lo", np.array(-1.5, np.float32)), ("hi", np.array(2.0, np.float32))])
    f.add("Clip", [("x", f.special((4, 4))), ("lo", None), ("hi", np.array(0.25, np.float32))], tag="nolo")
    f.add("Clip", [("x", f.special((4, 4))), ("lo", np.array(-0.0, np.float32))], tag="nohi")
    f.add("Clip", [("x", f.special((4, 4))), ("lo", np.array(2.0, np.float32)), ("hi", np.array(1.0, np.float32))], tag="lo_gt_hi")
    f.add("Clip", [("x", f.ints((4, 4), -20, 20, np.int32)), ("lo", np.array(-3, np.int32)), ("hi", np.array(5, np.int32))],
          tag="int32")
    f.add("Clip", [("x", np.array([np.inf, -np.inf, 1.0, np.nan], np.float32))], tag="nobounds")
    # Where with broadcasting.
    for i in range(4):
        s = f.bcast_shapes(3)
        f.add("Where", [("c", f.rng.random(s[0]) < 0.5), ("a", f.special(s[1])), ("b", f.special(s[2]))])
    s = f.bcast_shapes(3)
    f.add("Where", [("c", f.rng.random(s[0]) < 0.5), ("a", f.ints(s[1], -9, 9, np.int64)), ("b", f.ints(s[2], -9, 9, np.int64))],
          tag="int64")
    # Cast between float and integer types. Float to integer only in range (the out-of-range result
    # is the library's choice, ops-elementwise.md "Cast").
    T = TensorProto
    casts = [
        (np.float32, T.INT32, lambda: np.round(f.normal((4, 6), 1000.0)) + f.normal((4, 6), 0.4)),
        (np.float32, T.INT64, lambda: f.normal((4, 6), 1e6)),
        (np.float32, T.UINT8, lambda: np.abs(f.normal((4, 6), 60.0))),
        (np.float32, T.INT8, lambda: f.normal((4, 6), 40.0)),
        (np.float32, T.FLOAT16, lambda: f.special((4, 6))),
        (np.float32, T.FLOAT16, lambda: np.array([65504.0, 65519.0, 65520.0, 1e-8, 3e-8, 6e-8, -5.96e-8, 2049.0, 2051.0], np.float32)),
        (np.float32, T.DOUBLE, lambda: f.special((4, 6))),
        (np.float32, T.BOOL, lambda: f.special((4, 6))),
        (np.float16, T.FLOAT, lambda: f.special((4, 6), nan=True)),
        (np.float64, T.FLOAT, lambda: np.concatenate([f.normal((20,), 1e3, np.float64), [1e300, -1e300, 1e-310, np.nan, 1 + 2**-30]])),
        (np.int32, T.FLOAT, lambda: f.rng.integers(-2**31, 2**31 - 1, (4, 6))),
        (np.int64, T.FLOAT, lambda: f.rng.integers(-2**62, 2**62, (4, 6))),
        (np.int64, T.DOUBLE, lambda: f.rng.integers(-2**62, 2**62, (4, 6))),
        (np.int64, T.INT32, lambda: f.rng.integers(-2**40, 2**40, (4, 6))),
        (np.int32, T.UINT8, lambda: f.rng.integers(-1000, 1000, (4, 6))),
        (np.int32, T.INT8, lambda: f.rng.integers(-1000, 1000, (4, 6))),
        (np.uint8, T.FLOAT, lambda: f.rng.integers(0, 256, (4, 6))),
        (np.bool_, T.FLOAT, lambda: f.rng.random((4, 6)) < 0.5),
        (np.bool_, T.INT32, lambda: f.rng.random((4, 6)) < 0.5),
        (np.int32, T.BOOL, lambda: f.rng.integers(-2, 3, (4, 6))),
        (np.int32, T.INT64, lambda: f.rng.integers(-2**31, 2**31 - 1, (4, 6))),
        (np.uint32, T.INT32, lambda: f.rng.integers(0, 2**32, (4, 6))),
    ]
    for src, to, make in casts:
        x = np.asarray(make()).astype(src)
        f.add("Cast", [("x", x)], attrs=dict(to=to), tag="%s_to_%s" % (np.dtype(src).name, TensorProto.DataType.Name(to).lower()))
    # Lengths around the vector widths (whole vectors and tails).
    for n in (7, 17, 33, 65):
        for op in ("Exp", "Tanh", "Sigmoid", "Erf", "Gelu", "HardSwish"):
            f.add(op, [("x", f.normal((n,), 3.0))], tol=SCALED, tag="n%d" % n)
        for op in ("Add", "Mul", "Max", "Relu", "Abs"):
            ins = [("a", f.special((n,)))] + ([("b", f.special((n,)))] if op in ("Add", "Mul", "Max") else [])
            f.add(op, ins, tag="n%d" % n)


# =============================================================================================
# Normalisation and softmax


def gen_norms(f):
    for i in range(16):
        r = int(f.rng.integers(2, 5))
        shape = f.shape(r, 2, 5)
        axis = int(f.rng.integers(-r + 1, r))
        a = axis if axis >= 0 else axis + r
        norm_shape = shape[a:]
        scale = f.normal(norm_shape, 1.0)
        with_b = i % 3 != 2
        outs = ["y", "mean", "inv"] if i % 4 == 0 else ["y"]
        inputs = [("x", f.normal(shape, 2.0) + 1.0), ("scale", scale), ("bias", f.normal(norm_shape) if with_b else None)]
        f.add("LayerNormalization", inputs, attrs=dict(axis=axis, epsilon=float(1e-5 if i % 2 else 1e-3)), opset=17,
              outputs=outs, tol=SCALED, const=("scale",) if i % 2 else ())
    for i in range(6):
        r = int(f.rng.integers(2, 5))
        shape = f.shape(r, 1, 5)
        shape = (shape[0], int(f.rng.integers(1, 5))) + shape[2:]
        c = shape[1]
        f.add("BatchNormalization", [("x", f.normal(shape, 2.0)), ("scale", f.normal((c,))), ("bias", f.normal((c,))),
                                     ("mean", f.normal((c,))), ("var", np.abs(f.normal((c,))) + 0.1)],
              attrs=dict(epsilon=1e-5), opset=15, tol=SCALED, const=("mean", "var") if i % 2 else ())
    for i in range(6):
        r = int(f.rng.integers(3, 5))
        shape = f.shape(r, 2, 5)
        c = shape[1]
        f.add("InstanceNormalization", [("x", f.normal(shape, 3.0) + 2.0), ("scale", f.normal((c,))), ("bias", f.normal((c,)))],
              attrs=dict(epsilon=float(1e-5 * (i + 1))), opset=21, tol=SCALED)
    for i in range(6):
        g = int(f.rng.integers(1, 4))
        c = g * int(f.rng.integers(1, 3))
        shape = (int(f.rng.integers(1, 3)), c) + f.shape(int(f.rng.integers(1, 3)), 2, 4)
        f.add("GroupNormalization", [("x", f.normal(shape, 2.0)), ("scale", f.normal((c,))), ("bias", f.normal((c,)))],
              attrs=dict(num_groups=g, epsilon=1e-5), opset=21, tol=SCALED)
    for op in ("Softmax", "LogSoftmax"):
        for i in range(8):
            r = int(f.rng.integers(1, 5))
            shape = f.shape(r, 1, 6)
            axis = int(f.rng.integers(-r, r))
            x = f.normal(shape, 3.0)
            f.add(op, [("x", x)], attrs=dict(axis=axis), opset=13, tol=SCALED)
        x = f.normal((3, 5), 2.0)
        x[0, 1] = -np.inf
        x[1, :] = [1e30, -1e30, 5.0, 0.0, -0.0]
        f.add(op, [("x", x)], attrs=dict(axis=-1), opset=13, tol=SCALED, tag="inf")
        x = f.normal((2, 3, 4), 40.0)
        f.add(op, [("x", x)], attrs=dict(axis=1), opset=11, tol=SCALED, tag="coerce2d")
    # Wider rows (vector paths and the 16-partial canonical sum).
    f.add("LayerNormalization", [("x", f.normal((3, 40), 2.0) + 1.0), ("scale", f.normal((40,))), ("bias", f.normal((40,)))],
          attrs=dict(axis=-1), opset=17, tol=SCALED, tag="wide")
    f.add("InstanceNormalization", [("x", f.normal((1, 3, 7, 9), 2.0)), ("scale", f.normal((3,))), ("bias", f.normal((3,)))],
          opset=21, tol=SCALED, tag="wide")
    for op in ("Softmax", "LogSoftmax"):
        f.add(op, [("x", f.normal((4, 37), 3.0))], attrs=dict(axis=-1), opset=13, tol=SCALED, tag="wide")
        f.add(op, [("x", f.normal((3, 37, 2), 3.0))], attrs=dict(axis=1), opset=13, tol=SCALED, tag="wide")


# =============================================================================================
# Reductions


def gen_reduce(f):
    ops = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSumExp",
           "ReduceSumSquare", "ReduceLogSum"]
    for op in ops:
        opset = 13 if op == "ReduceSum" else 18
        exact = op in ("ReduceMax", "ReduceMin")
        for i in range(8):
            r = int(f.rng.integers(1, 5))
            shape = f.shape(r, 1, 5)
            k = int(f.rng.integers(0, r + 1))
            axes = sorted(f.rng.choice(r, k, replace=False).tolist())
            axes = [a - r if f.rng.random() < 0.4 else a for a in axes]
            attrs = dict(keepdims=int(i % 2))
            if k == 0 and i % 3 == 0:
                attrs["noop_with_empty_axes"] = 1
            if op == "ReduceProd":
                x = (1.0 + 0.3 * f.normal(shape)).astype(np.float32)
            elif op == "ReduceLogSum":
                x = np.abs(f.normal(shape)) + 0.05
            elif op in ("ReduceSum", "ReduceMean"):
                # A nonzero mean: a sum that cancels to nearly 0 makes any two summation orders differ
                # by more than 1e-4 of the result, and the scaled metric is then meaningless (oracles.md).
                x = f.normal(shape, 2.0) + 3.0
            else:
                x = f.normal(shape, 2.0)
            inputs = [("x", x), ("axes", np.array(axes, np.int64) if (k > 0 or i % 2) else None)]
            f.add(op, inputs, attrs=attrs, opset=opset, tol=EXACT if exact else SCALED, const=("axes",) if i % 3 else ())
        if op in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1"):
            for dt in (np.int32, np.int64):
                x = f.ints((3, 4, 2), -5, 6, dt)
                f.add(op, [("x", x), ("axes", np.array([-1, 0], np.int64))], attrs=dict(keepdims=1), opset=opset,
                      const=("axes",), tag=np.dtype(dt).name)
        if op in ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceL2"):
            x = f.special((4, 6), nan=False)
            f.add(op, [("x", x), ("axes", np.array([1], np.int64))], attrs=dict(keepdims=0), opset=opset,
                  tol=EXACT if exact else SCALED, const=("axes",), tag="special")
    # Larger rows so that summation order shows (still a few hundred elements).
    for op in ("ReduceSum", "ReduceMean", "ReduceL2", "ReduceLogSumExp"):
        f.add(op, [("x", f.normal((3, 97), 10.0)), ("axes", np.array([-1], np.int64))], opset=13 if op == "ReduceSum" else 18,
              tol=SCALED, const=("axes",), tag="long")
    for i in range(4):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 2, 5)
        axis = int(f.rng.integers(-r, r))
        x = f.normal(shape, 2.0) if i % 2 else f.ints(shape, -50, 50, np.int64)
        f.add("CumSum", [("x", x), ("axis", np.array(axis, np.int64))], attrs=dict(exclusive=i % 2, reverse=(i // 2) % 2),
              opset=14, tol=SCALED if i % 2 else EXACT, const=("axis",) if i < 2 else ())


# =============================================================================================
# Shape and indexing


def any_data(f, shape, i):
    kind = i % 5
    if kind == 0:
        return f.special(shape)
    if kind == 1:
        return f.ints(shape, -100, 100, np.int64)
    if kind == 2:
        return f.ints(shape, 0, 255, np.uint8)
    if kind == 3:
        return f.rng.random(shape) < 0.5
    return f.special(shape).astype(np.float16)


def gen_shape(f):
    # Reshape with 0 and -1.
    for i in range(6):
        shape = f.shape(int(f.rng.integers(2, 5)), 1, 4)
        n = int(np.prod(shape))
        target = list(shape)
        if i % 2:
            target = [0] + [-1]
        else:
            target = [shape[0], 0][: len(shape) - 1] + [-1]
            if len(shape) > 2:
                target = [0, 0, -1]
        if i == 4:
            target = [-1, 1, n] if n else [0]
        f.add("Reshape", [("x", any_data(f, shape, i)), ("shape", np.array(target, np.int64))], const=("shape",) if i % 2 else ())
    for i in range(5):
        r = int(f.rng.integers(1, 5))
        shape = f.shape(r, 1, 5)
        perm = f.rng.permutation(r).tolist()
        attrs = dict(perm=perm) if i != 4 else {}
        f.add("Transpose", [("x", any_data(f, shape, i))], attrs=attrs)
    for i in range(5):
        r = int(f.rng.integers(1, 4))
        base = list(f.shape(r, 1, 4))
        axis = int(f.rng.integers(-r, r))
        k = int(f.rng.integers(1, 4))
        ins = []
        for j in range(k):
            s = list(base)
            s[axis] = int(f.rng.integers(0 if j == 1 else 1, 4))
            ins.append(("x%d" % j, any_data(f, tuple(s), i)))
        f.add("Concat", ins, attrs=dict(axis=axis))
    for i in range(5):
        r = int(f.rng.integers(1, 4))
        shape = list(f.shape(r, 2, 6))
        axis = int(f.rng.integers(-r, r))
        x = any_data(f, tuple(shape), i)
        if i % 2:
            ext = shape[axis]
            a = int(f.rng.integers(0, ext + 1))
            f.add("Split", [("x", x), ("split", np.array([a, ext - a], np.int64))], attrs=dict(axis=axis), opset=18, outputs=2,
                  const=("split",))
        else:
            n = int(f.rng.integers(2, 4))
            f.add("Split", [("x", x)], attrs=dict(axis=axis, num_outputs=n), opset=18, outputs=n)
    # Slice: negative and out-of-range starts/ends, sentinels, negative steps.
    ends_pool = [INT64_MAX, INT64_MIN, 2**31 - 1, -(2**31), 100, -100, -1, 0, 1, 2, 3, -2]
    for i in range(40):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 1, 6)
        k = int(f.rng.integers(1, r + 1))
        axes = f.rng.choice(r, k, replace=False).tolist()
        axes = [a - r if f.rng.random() < 0.5 else a for a in axes]
        starts = [int(f.rng.choice(ends_pool)) for _ in range(k)]
        ends = [int(f.rng.choice(ends_pool)) for _ in range(k)]
        steps = [int(f.rng.choice([1, 2, -1, -2, 3, -3, INT64_MAX, INT64_MIN + 1])) for _ in range(k)]
        inputs = [("x", any_data(f, shape, i)), ("starts", np.array(starts, np.int64)), ("ends", np.array(ends, np.int64)),
                  ("axes", np.array(axes, np.int64)), ("steps", np.array(steps, np.int64))]
        if i % 6 == 5:
            inputs = inputs[:3]
        f.add("Slice", inputs, opset=13, const=("starts", "ends", "axes", "steps") if i % 2 else ())
    for i in range(6):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 1, 5)
        axis = int(f.rng.integers(-r, r))
        ext = shape[axis]
        idx = f.rng.integers(-ext, ext, f.shape(int(f.rng.integers(0, 3)), 1, 3)).astype(np.int64 if i % 2 else np.int32)
        f.add("Gather", [("x", any_data(f, shape, i)), ("i", idx)], attrs=dict(axis=axis), opset=13)
    for i in range(5):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 1, 5)
        axis = int(f.rng.integers(-r, r))
        ishape = tuple(int(f.rng.integers(1, d + 1)) for d in shape)
        ishape = tuple(int(f.rng.integers(1, 5)) if d == axis % r else ishape[d] for d in range(r))
        ext = shape[axis]
        idx = f.rng.integers(-ext, ext, ishape).astype(np.int64 if i % 2 else np.int32)
        f.add("GatherElements", [("x", any_data(f, shape, i)), ("i", idx)], attrs=dict(axis=axis), opset=13)
    for i in range(5):
        b = int(i % 2)
        shape = f.shape(3, 2, 4)
        m = int(f.rng.integers(1, 3 - b + 1))
        lead = (shape[0],) if b else ()
        extra = f.shape(int(f.rng.integers(0, 2)), 1, 3)
        idx = np.stack([f.rng.integers(-shape[b + j], shape[b + j], lead + extra) for j in range(m)], axis=-1).astype(np.int64)
        f.add("GatherND", [("x", any_data(f, shape, i)), ("i", idx)], attrs=dict(batch_dims=b), opset=13)
    for i, red in enumerate(["none", "none", "add", "mul", "max", "min", "none"]):
        shape = f.shape(2, 2, 5)
        axis = int(f.rng.integers(-2, 2))
        ishape = (int(f.rng.integers(1, shape[0] + 1)), int(f.rng.integers(1, shape[1] + 1)))
        ext = shape[axis]
        if red == "none":  # distinct indices along the axis so no write order question arises
            cols = []
            n_ax = ishape[axis]
            n_ax = min(n_ax, ext)
            ishape = (n_ax, ishape[1]) if axis % 2 == 0 else (ishape[0], n_ax)
            idx = np.zeros(ishape, np.int64)
            for j in range(ishape[1 - axis % 2]):
                perm = f.rng.permutation(ext)[:n_ax] - (ext if f.rng.random() < 0.5 else 0)
                if axis % 2 == 0:
                    idx[:, j] = perm
                else:
                    idx[j, :] = perm
        else:
            idx = f.rng.integers(-ext, ext, ishape).astype(np.int64)
        x = f.normal(shape, 2.0) if i != 6 else f.ints(shape, -9, 9, np.int64)
        upd = f.normal(ishape, 2.0) if i != 6 else f.ints(ishape, -9, 9, np.int64)
        f.add("ScatterElements", [("x", x), ("i", idx), ("u", upd)], attrs=dict(axis=axis, reduction=red), opset=18,
              tol=SCALED if red in ("add", "mul") else EXACT, tag=red)
    for i in range(5):
        sa, sb = f.bcast_shapes(2, 4)
        f.add("Expand", [("x", any_data(f, sb, i)), ("shape", np.array(sa, np.int64))], opset=13, const=("shape",) if i % 2 else ())
    for i in range(5):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 1, 3)
        reps = f.rng.integers(0 if i == 3 else 1, 4, r).astype(np.int64)
        f.add("Tile", [("x", any_data(f, shape, i)), ("reps", reps)], opset=13, const=("reps",) if i % 2 else ())
    for i, mode in enumerate(["constant", "constant", "edge", "reflect", "wrap", "constant", "edge", "reflect", "wrap", "reflect"]):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 2, 5)
        hi = [d - 1 for d in shape] if mode == "reflect" else [3] * r
        pads = [int(f.rng.integers(-1 if mode == "constant" else 0, h + 1)) for h in hi + hi]
        x = any_data(f, shape, i if mode != "constant" else 0)
        cv = None
        if mode == "constant" and i == 1:
            cv = np.array(2.5, x.dtype) if x.dtype != np.bool_ else np.array(True)
        inputs = [("x", x), ("pads", np.array(pads, np.int64)), ("cv", cv)]
        if i == 9 and r >= 2:
            inputs = [("x", x), ("pads", np.array(pads[:1] + pads[r:r + 1], np.int64)), ("cv", None), ("axes", np.array([-1], np.int64))]
        f.add("Pad", inputs, attrs=dict(mode=mode), opset=19, const=("pads", "axes") if i % 2 else (), tag=mode)
    for i in range(4):
        r = int(f.rng.integers(1, 5))
        shape = list(f.shape(r, 2, 4))
        ones = f.rng.choice(r, int(f.rng.integers(1, r + 1)), replace=False).tolist()
        for a in ones:
            shape[a] = 1
        axes = [a - r if f.rng.random() < 0.5 else a for a in ones]
        x = any_data(f, tuple(shape), i)
        f.add("Squeeze", [("x", x), ("axes", np.array(axes, np.int64) if i != 3 else None)], opset=21)
    for i in range(4):
        r = int(f.rng.integers(0, 4))
        shape = f.shape(r, 1, 4)
        k = int(f.rng.integers(1, 3))
        out_r = r + k
        axes = f.rng.choice(out_r, k, replace=False).tolist()
        axes = [a - out_r if f.rng.random() < 0.5 else a for a in axes]
        f.add("Unsqueeze", [("x", any_data(f, shape, i)), ("axes", np.array(axes, np.int64))], opset=21, const=("axes",) if i % 2 else ())
    ranges = [(np.float32, 0.0, 0.3, 0.1), (np.float32, 1.0, -2.0, -0.25), (np.float32, -3.5, 7.0, 0.7), (np.int32, 2, 40, 3),
              (np.int64, 10, -10, -3), (np.int64, 5, 5, 1), (np.int32, -5, 20, 6)]
    for dt, s, l, d in ranges:
        f.add("Range", [("s", np.array(s, dt)), ("l", np.array(l, dt)), ("d", np.array(d, dt))], opset=11)
    for i in range(5):
        depth = int(f.rng.integers(2, 6))
        idx = f.rng.integers(-depth - 1, depth + 1, f.shape(int(f.rng.integers(1, 3)), 1, 4)).astype(np.int64 if i % 2 else np.float32)
        vals = np.array([-1.0, 3.0], np.float32) if i % 2 else np.array([0, 1], np.int64)
        axis = int(f.rng.integers(-idx.ndim - 1, idx.ndim + 1))
        f.add("OneHot", [("i", idx), ("depth", np.array(depth, np.int64)), ("v", vals)], attrs=dict(axis=axis), opset=11,
              const=("depth",) if i % 2 else ())
    for i in range(8):
        r = int(f.rng.integers(1, 4))
        shape = f.shape(r, 2, 7)
        axis = int(f.rng.integers(-r, r))
        k = int(f.rng.integers(1, shape[axis] + 1))
        if i % 3 == 0:
            x = f.ints(shape, -3, 3, np.float32).astype(np.float32)  # ties
        elif i % 3 == 1:
            x = f.special(shape, nan=False)
        else:
            x = f.ints(shape, -100, 100, np.int64)
        f.add("TopK", [("x", x), ("k", np.array([k], np.int64))], attrs=dict(axis=axis, largest=int(i % 2 == 0), sorted=1),
              opset=11, outputs=2, const=("k",) if i % 2 else ())


# =============================================================================================
# Convolution


def conv_case(f, op, rank, i):
    g = int(f.rng.choice([1, 1, 2, 3]))
    depthwise = i % 5 == 4 and op == "Conv"
    cin_g = int(f.rng.integers(1, 4))
    cout_g = int(f.rng.integers(1, 4))
    if depthwise:
        g = int(f.rng.integers(2, 5))
        cin_g, cout_g = 1, int(f.rng.choice([1, 2]))
    cin, cout = g * cin_g, g * cout_g
    k = f.shape(rank, 1, 3)
    dil = f.shape(rank, 1, 2)
    st = f.shape(rank, 1, 3)
    ap = ["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"][i % 5]
    if ap.startswith("SAME") and op == "Conv":
        dil = (1,) * rank  # ONNX Runtime refuses dilation with SAME_* for Conv
    spatial = tuple(int(f.rng.integers(max(k[j] * dil[j], 3), 8)) for j in range(rank))
    x = f.normal((int(f.rng.integers(1, 3)), cin) + spatial)
    attrs = dict(group=g, dilations=list(dil), strides=list(st), kernel_shape=list(k))
    if ap == "NOTSET":
        attrs["pads"] = [int(f.rng.integers(0, k[j % rank])) for j in range(2 * rank)]
    else:
        attrs["auto_pad"] = ap
    if op == "Conv":
        w = f.normal((cout, cin_g) + k, 0.7)
    else:
        w = f.normal((cin, cout_g) + k, 0.7)
        if ap == "NOTSET" and i % 3 == 0:
            attrs["output_padding"] = [int(f.rng.integers(0, min(st[j], dil[j]))) for j in range(rank)]
    bias = f.normal((cout,)) if i % 2 else None
    f.add(op, [("x", x), ("w", w), ("b", bias)], attrs=attrs, opset=11 if op == "Conv" else 11, tol=SCALED,
          const=("w", "b") if i % 3 else (), tag="%dd" % rank)


def gen_conv(f):
    for op in ("Conv", "ConvTranspose"):
        for rank in (1, 2):
            for i in range(16 if op == "Conv" else 12):
                conv_case(f, op, rank, i)
    # ConvTranspose with output_shape.
    x = f.normal((1, 2, 3, 4))
    w = f.normal((2, 3, 3, 3))
    f.add("ConvTranspose", [("x", x), ("w", w)], attrs=dict(strides=[2, 2], output_shape=[7, 10]), tol=SCALED, tag="output_shape")
    # Wider channels, so the optimized engine's packed and vector paths see full blocks.
    for i, (cin, cout, g, k) in enumerate([(8, 8, 1, 3), (8, 16, 1, 1), (12, 12, 12, 3), (6, 9, 3, 3)]):
        x = f.normal((1, cin, 6, 7))
        f.add("Conv", [("x", x), ("w", f.normal((cout, cin // g, k, k), 0.4)), ("b", f.normal((cout,)))],
              attrs=dict(group=g, pads=[k // 2] * 4, strides=[1 + i % 2, 1]), tol=SCALED, const=("w", "b") if i % 2 else (),
              tag="wide")
    x = f.normal((1, 8, 4, 5))
    f.add("ConvTranspose", [("x", x), ("w", f.normal((8, 6, 3, 3), 0.4))], attrs=dict(strides=[2, 2], pads=[1, 1, 1, 1],
          output_padding=[1, 1]), tol=SCALED, const=("w",), tag="wide")


# =============================================================================================
# Pooling


def pool_out(n, k, d, s, b, a, ceil):
    e = d * (k - 1) + 1
    if ceil:
        out = -(-(n + b + a - e) // s) + 1
        if (out - 1) * s >= n + b:
            out -= 1
    else:
        out = (n + b + a - e) // s + 1
    return out


def gen_pool(f):
    for op in ("MaxPool", "AveragePool"):
        for rank in (1, 2):
            for i in range(16):
                k = f.shape(rank, 1, 3)
                dil = f.shape(rank, 1, 2) if i % 3 == 1 else (1,) * rank
                st = f.shape(rank, 1, 3)
                spatial = tuple(int(f.rng.integers(dil[j] * (k[j] - 1) + 1, 8)) for j in range(rank))
                shape = (int(f.rng.integers(1, 3)), int(f.rng.integers(1, 4))) + spatial
                x = f.special(shape, p=0.2, nan=False) if op == "MaxPool" else f.normal(shape, 2.0)
                attrs = dict(kernel_shape=list(k), strides=list(st), ceil_mode=int(i % 2))
                if any(d > 1 for d in dil):
                    attrs["dilations"] = list(dil)
                if i % 4 == 3 and all(d == 1 for d in dil):
                    attrs["auto_pad"] = ["SAME_UPPER", "SAME_LOWER", "VALID"][(i // 4) % 3]
                    pads = None
                else:
                    pads = [int(f.rng.integers(0, k[j % rank])) for j in range(2 * rank)]
                    attrs["pads"] = pads
                if op == "AveragePool":
                    attrs["count_include_pad"] = int((i // 2) % 2)
                outs = 1
                if op == "MaxPool" and i % 3 == 2:
                    outs = 2
                    attrs["storage_order"] = int((i // 3) % 2)
                if pads is not None:
                    want = [pool_out(spatial[j], k[j], dil[j], st[j], pads[j], pads[j + rank], attrs["ceil_mode"]) for j in range(rank)]
                else:
                    want = None
                before = len(f.cases)
                ok = f.add(op, [("x", x)], attrs=attrs, opset=19 if op == "AveragePool" else 12, outputs=outs,
                           tol=EXACT if op == "MaxPool" else SCALED, tag="%dd" % rank)
                if ok and want is not None:
                    got = list(f.cases[-1]["outputs"][0][1].shape[2:])
                    if got != want:  # ops-conv.md "Output sizes": such cases are left out
                        c = f.cases.pop()
                        f.dropped.append((c["name"], "ONNX Runtime's output size %s differs from the operator text's %s" % (got, want)))
                assert len(f.cases) <= before + 1
    for i in range(4):
        shape = (int(f.rng.integers(1, 3)), int(f.rng.integers(1, 4))) + f.shape(i % 3 + 1, 1, 5)
        f.add("GlobalAveragePool", [("x", f.normal(shape, 2.0))], opset=1, tol=SCALED)
        f.add("GlobalMaxPool", [("x", f.special(shape, p=0.2, nan=False))], opset=1)


# =============================================================================================
# Resize


def gen_resize(f):
    coord_modes = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "half_pixel_symmetric"]
    nearest_modes = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
    i = 0
    for cm in coord_modes:
        for nm in nearest_modes:
            shape = (1, int(f.rng.integers(1, 3)), int(f.rng.integers(2, 6)), int(f.rng.integers(2, 6)))
            x = f.special(shape, p=0.2)
            use_scales = i % 2 == 0
            scales = np.array([1, 1, f.rng.choice([0.5, 0.6, 1.5, 2.0, 2.5, 3.0]), f.rng.choice([0.75, 1.3, 2.0, 3.0])], np.float32)
            sizes = np.array([shape[0], shape[1], int(f.rng.integers(1, 9)), int(f.rng.integers(1, 9))], np.int64)
            inputs = [("x", x), ("roi", None), ("scales", scales if use_scales else None), ("sizes", None if use_scales else sizes)]
            f.add("Resize", inputs, attrs=dict(mode="nearest", coordinate_transformation_mode=cm, nearest_mode=nm), opset=19,
                  const=("scales", "sizes") if i % 3 else (), tag="nearest")
            i += 1
    for mode in ("linear", "cubic"):
        for j, cm in enumerate(coord_modes * 3):
            shape = (1, int(f.rng.integers(1, 3)), int(f.rng.integers(2, 6)), int(f.rng.integers(2, 6)))
            x = f.normal(shape, 2.0)
            use_scales = j % 2 == 0
            scales = np.array([1, 1, f.rng.choice([0.5, 0.6, 0.8, 1.5, 2.0]), f.rng.choice([0.7, 1.25, 2.0, 3.0])], np.float32)
            sizes = np.array([shape[0], shape[1], int(f.rng.integers(1, 9)), int(f.rng.integers(1, 9))], np.int64)
            attrs = dict(mode=mode, coordinate_transformation_mode=cm)
            if mode == "cubic":
                attrs["cubic_coeff_a"] = float([-0.75, -0.5][j % 2])
                attrs["exclude_outside"] = int(j >= 5)
            inputs = [("x", x), ("roi", None), ("scales", scales if use_scales else None), ("sizes", None if use_scales else sizes)]
            f.add("Resize", inputs, attrs=attrs, opset=19, tol=SCALED, const=("scales", "sizes") if j % 3 else (), tag=mode)
    # 1-D and 3-D (rank 3 and 5 inputs) with axes, keep_aspect_ratio_policy, tf_crop_and_resize.
    x = f.normal((2, 7), 2.0)
    f.add("Resize", [("x", x), ("roi", None), ("scales", None), ("sizes", np.array([4], np.int64))],
          attrs=dict(mode="linear", axes=[-1]), opset=19, tol=SCALED, tag="axes")
    for pol in ("not_larger", "not_smaller"):
        x = f.normal((1, 1, 4, 6), 2.0)
        f.add("Resize", [("x", x), ("roi", None), ("scales", None), ("sizes", np.array([5, 5], np.int64))],
              attrs=dict(mode="linear", axes=[2, 3], keep_aspect_ratio_policy=pol), opset=19, tol=SCALED, tag=pol)
    for mode in ("nearest", "linear", "cubic"):
        x = f.normal((1, 1, 5, 5), 2.0)
        roi = np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 1.2], np.float32)
        f.add("Resize", [("x", x), ("roi", roi), ("scales", None), ("sizes", np.array([1, 1, 4, 6], np.int64))],
              attrs=dict(mode=mode, coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-7.0), opset=19,
              tol=EXACT if mode == "nearest" else SCALED, const=("roi",), tag="tf_crop_and_resize")
    for mode in ("linear", "cubic"):
        x = f.normal((1, 2, 8, 8), 2.0)
        f.add("Resize", [("x", x), ("roi", None), ("scales", np.array([1, 1, 0.5, 0.6], np.float32))],
              attrs=dict(mode=mode, antialias=1), opset=19, tol=SCALED, tag="antialias")
    x = f.normal((1, 1, 2, 3, 3), 2.0)
    f.add("Resize", [("x", x), ("roi", None), ("scales", np.array([1, 1, 2, 1.5, 0.7], np.float32))],
          attrs=dict(mode="nearest"), opset=19, tag="rank5")


# =============================================================================================
# Recurrent


GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def gen_recurrent(f):
    for op in ("RNN", "GRU", "LSTM"):
        for i in range(14):
            g = GATES[op]
            direction = ["forward", "reverse", "bidirectional"][i % 3]
            dirs = 2 if direction == "bidirectional" else 1
            seq, batch, inp, hid = int(f.rng.integers(1, 5)), int(f.rng.integers(1, 4)), int(f.rng.integers(1, 5)), int(f.rng.integers(1, 5))
            inputs = [("X", f.normal((seq, batch, inp))), ("W", f.normal((dirs, g * hid, inp), 0.5)),
                      ("R", f.normal((dirs, g * hid, hid), 0.5)),
                      ("B", f.normal((dirs, 2 * g * hid), 0.3) if i % 4 != 1 else None)]
            lens = None
            if i % 3 == 1:
                lens = f.rng.integers(0 if i >= 5 else 1, seq + 1, batch).astype(np.int32)
            inputs.append(("sequence_lens", lens))
            inputs.append(("initial_h", f.normal((dirs, batch, hid)) if i % 2 else None))
            if op == "LSTM":
                inputs.append(("initial_c", f.normal((dirs, batch, hid)) if i % 4 in (1, 2) else None))
                inputs.append(("P", f.normal((dirs, 3 * hid), 0.5) if i % 5 == 3 else None))
            attrs = dict(hidden_size=hid, direction=direction)
            if op == "GRU":
                attrs["linear_before_reset"] = int(i % 2)
            if i == 8:
                attrs["clip"] = 0.8
            if op == "LSTM" and i == 9:
                attrs["input_forget"] = 1
            outs = ["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"]
            if i == 7:
                outs = ["", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
            f.add(op, inputs, attrs=attrs, opset=22, outputs=outs, tol=SCALED, const=("W", "R", "B") if i % 2 == 0 else ())


# =============================================================================================
# float64 and bool (issue 12): the element types ONNX defines for these operators beyond float32.


def gen_float64(f):
    d = np.float64
    def data(shape, scale=2.0):
        return f.normal(shape, scale, d)
    def special64(shape):
        # The float32 special values widened, plus double-only magnitudes.
        a = f.special(shape, nan=True, inf=True).astype(d)
        mask = f.rng.random(a.shape) < 0.15
        pool = np.array([1e-300, -5e-324, 1e200, -1e200, 0.1, -0.1], d)
        a[mask] = pool[f.rng.integers(0, len(pool), a.shape)][mask]
        return a
    # Transcendental unary operators (fast mode only in float64): moderate ranges, then specials.
    unary = [("Exp", 13, 3.0), ("Log", 13, None), ("Tanh", 13, 3.0), ("Sigmoid", 13, 4.0), ("Erf", 13, 2.0),
             ("Sin", 7, 4.0), ("Cos", 7, 4.0), ("Elu", 6, 3.0), ("Selu", 6, 3.0), ("Softplus", 1, 5.0),
             ("Mish", 18, 3.0), ("Gelu", 20, 3.0)]
    for op, opset, scale in unary:
        for i in range(2):
            shape = f.shape(int(f.rng.integers(1, 4)), 1, 6)
            x = np.abs(data(shape)) + 1e-3 if scale is None else data(shape, scale)
            f.add(op, [("x", x)], opset=opset, tol=SCALED)
        if op not in ("Sin", "Cos"):
            x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 20.0, -20.0, 0.5], d)
            if op == "Log":
                x = np.array([0.0, -0.0, np.inf, np.nan, 1e-300, 5e-324, 1e300, 1.0, 2.0, -1.0], d)
            f.add(op, [("x", x)], opset=opset, tol=SCALED, tag="special")
    f.add("Elu", [("x", data((3, 4)))], attrs=dict(alpha=0.3), opset=6, tol=SCALED, tag="alpha")
    f.add("Selu", [("x", data((3, 4)))], attrs=dict(alpha=1.5, gamma=0.75), opset=6, tol=SCALED, tag="attrs")
    f.add("Gelu", [("x", data((4, 5), 3.0))], attrs=dict(approximate="tanh"), opset=20, tol=SCALED, tag="tanh")
    # Exact in float64: comparisons and single correctly rounded operations.
    exact_unary = [("LeakyRelu", 16, dict(alpha=0.1), EXACT), ("ThresholdedRelu", 10, dict(alpha=0.3), EXACT),
                   ("Shrink", 9, dict(bias=0.25, lambd=0.75), EXACT), ("HardSigmoid", 6, dict(alpha=0.3, beta=0.4), SCALED),
                   ("HardSwish", 14, {}, SCALED), ("Softsign", 1, {}, SCALED)]
    for op, opset, attrs, tol in exact_unary:
        # ONNX Runtime 1.31.1's double Shrink rounds x to float32 before adding the bias
        # (Shrink(3.3, bias 0.25, lambd 0.75) = 3.04999995), against the operator text (y = x - bias
        # in T): its oracle is the onnx reference evaluator.
        ref = op == "Shrink"
        f.add(op, [("x", data((3, 5), 4.0))], attrs=attrs, opset=opset, tol=tol, onnxref=ref)
        f.add(op, [("x", special64((4, 4)))], opset=opset, tol=tol, tag="special", onnxref=ref)
    # Softmax family.
    for op in ("Softmax", "LogSoftmax", "Hardmax"):
        tol = EXACT if op == "Hardmax" else SCALED
        for i in range(3):
            r = int(f.rng.integers(1, 4))
            shape = f.shape(r, 1, 6)
            f.add(op, [("x", data(shape, 3.0))], attrs=dict(axis=int(f.rng.integers(-r, r))), opset=13, tol=tol)
        if op != "Hardmax":  # the onnx reference evaluator's Hardmax does not coerce to 2-D before opset 13
            f.add(op, [("x", data((2, 3, 4), 3.0))], attrs=dict(axis=1), opset=11, tol=tol, tag="coerce2d")
        f.add(op, [("x", data((3, 37), 3.0))], attrs=dict(axis=-1), opset=13, tol=tol, tag="wide")
    # Log reductions.
    for op in ("ReduceLogSum", "ReduceLogSumExp"):
        for i in range(4):
            r = int(f.rng.integers(1, 4))
            shape = f.shape(r, 1, 5)
            k = int(f.rng.integers(0, r + 1))
            axes = sorted(f.rng.choice(r, k, replace=False).tolist())
            x = np.abs(data(shape)) + 0.05 if op == "ReduceLogSum" else data(shape, 3.0)
            inputs = [("x", x), ("axes", np.array(axes, np.int64) if k > 0 else None)]
            f.add(op, inputs, attrs=dict(keepdims=i % 2), opset=18, tol=SCALED, const=("axes",))
        f.add(op, [("x", np.abs(data((2, 3))) + 0.1)], attrs=dict(axes=[1]), opset=13, tol=SCALED, tag="attribute")
    # Normalisations and global pooling, exact in float64.
    for i in range(3):
        shape = (int(f.rng.integers(1, 3)), int(f.rng.integers(1, 4))) + f.shape(int(f.rng.integers(1, 3)), 2, 5)
        c = shape[1]
        f.add("InstanceNormalization", [("x", data(shape, 3.0) + 2.0), ("scale", data((c,), 1.0)), ("bias", data((c,), 1.0))],
              attrs=dict(epsilon=float(1e-5 * (i + 1))), opset=6, tol=SCALED)
        f.add("BatchNormalization", [("x", data(shape)), ("scale", data((c,), 1.0)), ("bias", data((c,), 1.0)),
                                     ("mean", data((c,), 1.0)), ("var", np.abs(data((c,), 1.0)) + 0.1)],
              attrs=dict(epsilon=1e-5), opset=15, tol=SCALED, const=("mean", "var") if i % 2 else ())
        f.add("GlobalAveragePool", [("x", data(shape, 3.0))], opset=1, tol=SCALED)
        # Rank 4: the onnx reference evaluator's GlobalMaxPool drops the channel axis at rank 3.
        f.add("GlobalMaxPool", [("x", data(shape[:2] + (2, 3), 3.0))], opset=1)
    for i in range(3):
        g = int(f.rng.integers(1, 4))
        c = g * int(f.rng.integers(1, 3))
        shape = (int(f.rng.integers(1, 3)), c) + f.shape(int(f.rng.integers(1, 3)), 2, 4)
        f.add("GroupNormalization", [("x", data(shape)), ("scale", data((g,), 1.0)), ("bias", data((g,), 1.0))],
              attrs=dict(num_groups=g, epsilon=1e-5), opset=18, tol=SCALED)
    for i in range(3):
        f.add("AveragePool", [("x", data((1, 2, 5, 6), 3.0))],
              attrs=dict(kernel_shape=[2, 3], strides=[1, 2], pads=[1, 1, 0, 1] if i else [0, 0, 0, 0],
                         count_include_pad=i % 2, ceil_mode=int(i == 2)), opset=19, tol=SCALED)
    # Stage one in float32 (stash_type 1), scale and bias in float64.
    for i in range(4):
        r = int(f.rng.integers(2, 4))
        shape = f.shape(r, 2, 5)
        axis = int(f.rng.integers(-r + 1, r))
        norm_shape = shape[axis if axis >= 0 else axis + r:]
        outs = ["y", "mean", "inv"] if i == 0 else ["y"]
        f.add("LayerNormalization", [("x", data(shape) + 1.0), ("scale", data(norm_shape, 1.0)),
                                     ("bias", data(norm_shape, 1.0) if i % 2 else None)],
              attrs=dict(axis=axis), opset=17, outputs=outs, tol=SCALED)
        f.add("RMSNormalization", [("x", data(shape) + 1.0), ("scale", data(norm_shape, 1.0))], attrs=dict(axis=axis),
              opset=23, tol=SCALED)
    for i in range(2):
        g = int(f.rng.integers(1, 4))
        c = g * int(f.rng.integers(1, 3))
        shape = (int(f.rng.integers(1, 3)), c) + f.shape(int(f.rng.integers(1, 3)), 2, 4)
        f.add("GroupNormalization", [("x", data(shape)), ("scale", data((c,), 1.0)), ("bias", data((c,), 1.0))],
              attrs=dict(num_groups=g, epsilon=1e-5), opset=21, tol=SCALED)
    # bool ReduceMax / ReduceMin (opset 20).
    for op in ("ReduceMax", "ReduceMin"):
        for i in range(4):
            r = int(f.rng.integers(1, 4))
            shape = f.shape(r, 1, 4)
            k = int(f.rng.integers(0, r + 1))
            axes = sorted(f.rng.choice(r, k, replace=False).tolist())
            x = f.rng.random(shape) < (0.8 if (op == "ReduceMin") else 0.2)
            inputs = [("x", x), ("axes", np.array(axes, np.int64) if k > 0 else None)]
            f.add(op, inputs, attrs=dict(keepdims=i % 2), opset=20, const=("axes",), tag="bool")


FAMILIES = [
    ("elementwise", 101, gen_elementwise),
    ("norms", 102, gen_norms),
    ("reduce", 103, gen_reduce),
    ("shape", 104, gen_shape),
    ("conv", 105, gen_conv),
    ("pool", 106, gen_pool),
    ("resize", 107, gen_resize),
    ("recurrent", 108, gen_recurrent),
    ("float64", 109, gen_float64),
    ("quant", 110, gen_quant),
    ("breadth", 111, gen_breadth),
    ("breadth_ops", 112, gen_breadth_ops),
    ("newattn", 117, gen_newattn),
    ("attention", 116, gen_attention),
    ("exactloss", 118, gen_exactloss),
    ("strings", 115, gen_strings),
    ("float8", 113, gen_float8),
    ("subbyte", 114, gen_subbyte),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "oracles", "cases"))
    ap.add_argument("--family", action="append")
    args = ap.parse_args()
    if ort.__version__ != "1.31.1":
        print("warning: onnxruntime %s, the pin is 1.31.1 (oracles.md)" % ort.__version__, file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    np.seterr(all="ignore")  # the special values overflow on purpose (float32 to float16)
    total = 0
    for name, seed, gen in FAMILIES:
        if args.family and name not in args.family:
            continue
        f = Family(name, seed, reference_fallback=(name in ("float64", "breadth", "breadth_ops", "attention")))
        f = Family(name, seed, reference_fallback=(name in ("float64", "breadth", "breadth_ops", "exactloss")))
        gen(f)
        data = archive_bytes(name, f.cases)
        path = os.path.join(args.out, name + ".bin")
        with open(path, "wb") as out:
            out.write(data)
        total += len(data)
        print("%-12s %4d cases %8d bytes  (%d dropped)" % (name, len(f.cases), len(data), len(f.dropped)))
        for case, why in f.dropped:
            print("    dropped %s: %s" % (case, why))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()
