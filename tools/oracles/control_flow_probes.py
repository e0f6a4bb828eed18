#!/usr/bin/env python3
"""Semantic probes of control flow and sequences (issue 13, docs/verification.md): small graphs built
here, run by ONNX Runtime and by `onemodel run` in both engines, outputs compared (exact equality
for sequences, numpy.allclose for tensors). Run by hand; prints one line per probe and engine:
`same`, `DIFFERS` with the outputs, or the error of either side.

    ~/onemodel/venvs/oracles/bin/python tools/oracles/control_flow_probes.py [--cli build/rel/onemodel]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper, numpy_helper

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "rel", "onemodel"))
ARGS = parser.parse_args()
CLI = ARGS.cli
WORK = tempfile.mkdtemp(prefix="onemodel_probes_")


def f32(n, s=None): return helper.make_tensor_value_info(n, T.FLOAT, s)
def i64(n, s=None): return helper.make_tensor_value_info(n, T.INT64, s)
def b(n, s=None): return helper.make_tensor_value_info(n, T.BOOL, s)
def seqf(n): return helper.make_tensor_sequence_value_info(n, T.FLOAT, None)
def model(nodes, ins, outs, inits=(), opset=17):
    m = helper.make_model(helper.make_graph(nodes, "p", ins, outs, list(inits)), opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m
def check(name, m, feeds):
    path = f"{WORK}/probe_{name}.onnx"; onnx.save(m, path)
    try:
        ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
    except Exception as e:
        ref = f"ORT error: {str(e)[:150]}"
    args = [CLI, "run", path, "--output-dir", f"{WORK}/probe_{name}_out"]
    for k, v in feeds.items():
        np.save(f"{WORK}/probe_{name}_{k}.npy", v); args += ["--input", f"{k}={WORK}/probe_{name}_{k}.npy"]
    for engine in ("reference", "optimized"):
        r = subprocess.run(args + ["--engine", engine], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name} {engine}: ours error: {r.stderr.strip()[:200]} | ORT: {ref if isinstance(ref, str) else [x.shape for x in ref]}")
            continue
        if isinstance(ref, str):
            print(f"{name} {engine}: ours ran, {ref}"); continue
        outs = [o.name for o in m.graph.output]
        ok = True
        for o, want in zip(outs, ref):
            if isinstance(want, list):
                got = [np.load(f"{WORK}/probe_{name}_out/{o}_{k}.npy") for k in range(len(want))]
                same = all(g.shape == w.shape and np.array_equal(g, w) for g, w in zip(got, want))
                if not same: ok = False; print(f"  {o}: seq differs: {[g.shape for g in got]} vs {[w.shape for w in want]}")
                continue
            got = np.load(f"{WORK}/probe_{name}_out/{o}.npy")
            if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(got, want, equal_nan=True):
                ok = False; print(f"  {o}: ours {got.dtype}{got.shape} {got.ravel()[:6]} ORT {want.dtype}{want.shape} {want.ravel()[:6]}")
        print(f"{name} {engine}: {'same' if ok else 'DIFFERS'}")

body = helper.make_graph([helper.make_node("Identity", ["c"], ["co"]), helper.make_node("Add", ["h", "one"], ["ho"]),
                          helper.make_node("Identity", ["h"], ["so"])], "b",
                         [i64("i", []), b("c", []), f32("h", [2])], [b("co", []), f32("ho", [2]), f32("so", [2])])
one = numpy_helper.from_array(np.ones(2, np.float32), "one")
# (a) zero iterations with a scan output
check("loop_zero", model([helper.make_node("Loop", ["m", "", "h0"], ["hf", "ss"], body=body)], [i64("m", []), f32("h0", [2])],
      [f32("hf"), f32("ss")], [one]), {"m": np.array(0, np.int64), "h0": np.array([1, 2], np.float32)})
check("loop_three", model([helper.make_node("Loop", ["m", "", "h0"], ["hf", "ss"], body=body)], [i64("m", []), f32("h0", [2])],
      [f32("hf"), f32("ss")], [one]), {"m": np.array(3, np.int64), "h0": np.array([1, 2], np.float32)})
# (g) cond false at the start
check("loop_cond_false", model([helper.make_node("Loop", ["", "c0", "h0"], ["hf", "ss"], body=body)], [b("c0", []), f32("h0", [2])],
      [f32("hf"), f32("ss")], [one]), {"c0": np.array(False), "h0": np.array([1, 2], np.float32)})
# (b) Scan with negative axes and reverse output
sbody = helper.make_graph([helper.make_node("Add", ["s", "x"], ["so"]), helper.make_node("Identity", ["so"], ["y"])], "sb",
                          [f32("s", [3]), f32("x", [3])], [f32("so", [3]), f32("y", [3])])
check("scan_neg_axes", model([helper.make_node("Scan", ["s0", "xs"], ["sf", "ys"], body=sbody, num_scan_inputs=1,
                              scan_input_axes=[-1], scan_output_axes=[-1], scan_output_directions=[1])],
                              [f32("s0", [3]), f32("xs", [3, 4])], [f32("sf"), f32("ys")]),
      {"s0": np.zeros(3, np.float32), "xs": np.arange(12, dtype=np.float32).reshape(3, 4)})
# (f) If whose branch returns an outer value directly, the other a node result
tb = helper.make_graph([], "t", [], [f32("x")])
eb = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"])], "e", [], [f32("nx")])
for c in (True, False):
    check(f"if_passthrough_{c}", model([helper.make_node("If", ["c"], ["y"], then_branch=tb, else_branch=eb)], [b("c", []), f32("x", [2])],
          [f32("y")]), {"c": np.array(c), "x": np.array([1.5, -2], np.float32)})
# (c) SplitToSequence scalar split not dividing, then ConcatFromSequence new_axis=0 axis=-1
check("split_uneven", model([helper.make_node("SplitToSequence", ["x", "k"], ["s"], axis=1),
                             helper.make_node("SequenceAt", ["s", "p"], ["last"]), helper.make_node("SequenceLength", ["s"], ["n"])],
                            [f32("x", [2, 5])], [f32("last"), i64("n")],
                            [numpy_helper.from_array(np.array(2, np.int64), "k"), numpy_helper.from_array(np.array(-1, np.int64), "p")]),
      {"x": np.arange(10, dtype=np.float32).reshape(2, 5)})
# (d) SequenceInsert at a negative position, SequenceErase, ConcatFromSequence axis -1
check("insert_negative", model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0),
                                helper.make_node("SequenceInsert", ["s", "t", "p"], ["s2"]),
                                helper.make_node("SequenceErase", ["s2", "q"], ["s3"]),
                                helper.make_node("ConcatFromSequence", ["s3"], ["y"], axis=-1)],
                               [f32("x", [3, 2]), f32("t", [1, 2])], [f32("y")],
                               [numpy_helper.from_array(np.array(-1, np.int64), "p"), numpy_helper.from_array(np.array(0, np.int64), "q")]),
      {"x": np.arange(6, dtype=np.float32).reshape(3, 2), "t": np.array([[9, 9]], np.float32)})
check("concat_new_axis_neg", model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
                                    helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=-1, new_axis=1)],
                                   [f32("x", [3, 2])], [f32("y")]), {"x": np.arange(6, dtype=np.float32).reshape(3, 2)})
# Loop carrying a sequence (SequenceInsert each iteration) returned as a sequence output
lb = helper.make_graph([helper.make_node("Identity", ["c"], ["co"]), helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
                        helper.make_node("Unsqueeze", ["fi", "ax"], ["u"]), helper.make_node("SequenceInsert", ["sq", "u"], ["sqo"])],
                       "lb", [i64("i", []), b("c", []), seqf("sq")], [b("co", []), seqf("sqo")])
check("loop_sequence", model([helper.make_node("SequenceEmpty", [], ["e"]), helper.make_node("Loop", ["m", "", "e"], ["sf"], body=lb)],
                             [i64("m", [])], [seqf("sf")], [numpy_helper.from_array(np.array([0], np.int64), "ax")]),
      {"m": np.array(4, np.int64)})
# Scan of zero length
sbody = helper.make_graph([helper.make_node("Add", ["s", "x"], ["so"]), helper.make_node("Identity", ["so"], ["y"])], "sb",
                          [f32("s", [3]), f32("x", [3])], [f32("so", [3]), f32("y", [3])])
check("scan_zero", model([helper.make_node("Scan", ["s0", "xs"], ["sf", "ys"], body=sbody, num_scan_inputs=1)],
                         [f32("s0", [3]), f32("xs", [0, 3])], [f32("sf"), f32("ys")]),
      {"s0": np.ones(3, np.float32), "xs": np.zeros((0, 3), np.float32)})
# Scan-8 with sequence_lens and reverse
s8 = helper.make_graph([helper.make_node("Add", ["s", "x"], ["so"]), helper.make_node("Identity", ["so"], ["y"])], "s8",
                       [f32("s", [2]), f32("x", [2])], [f32("so", [2]), f32("y", [2])])
check("scan8_lens", model([helper.make_node("Scan", ["lens", "s0", "xs"], ["sf", "ys"], body=s8, num_scan_inputs=1, directions=[1])],
                          [i64("lens", [2]), f32("s0", [2, 2]), f32("xs", [2, 3, 2])], [f32("sf"), f32("ys")], opset=8),
      {"lens": np.array([3, 2], np.int64), "s0": np.zeros((2, 2), np.float32), "xs": np.arange(12, dtype=np.float32).reshape(2, 3, 2)})
# While loop stopping on the body's condition, M given
wb = helper.make_graph([helper.make_node("Add", ["h", "one"], ["ho"]), helper.make_node("ReduceSum", ["ho"], ["s"], keepdims=0),
                        helper.make_node("Less", ["s", "lim"], ["co"]), helper.make_node("Identity", ["ho"], ["so"])], "wb",
                       [i64("i", []), b("c", []), f32("h", [2])], [b("co", []), f32("ho", [2]), f32("so", [2])])
check("loop_while", model([helper.make_node("Loop", ["m", "c0", "h0"], ["hf", "ss"], body=wb)], [i64("m", []), b("c0", []), f32("h0", [2])],
      [f32("hf"), f32("ss")], [one, numpy_helper.from_array(np.array(11, np.float32), "lim")]),
      {"m": np.array(100, np.int64), "c0": np.array(True), "h0": np.array([1, 2], np.float32)})
# Growing carried value (Concat) and nested Loop inside a Loop
inner = helper.make_graph([helper.make_node("Identity", ["c2"], ["co2"]), helper.make_node("Mul", ["v", "two"], ["vo"])], "inner",
                          [i64("j", []), b("c2", []), f32("v", None)], [b("co2", []), f32("vo", None)])
gb = helper.make_graph([helper.make_node("Identity", ["c"], ["co"]), helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
                        helper.make_node("Reshape", ["fi", "shp"], ["r"]), helper.make_node("Concat", ["acc", "r"], ["grown"], axis=0),
                        helper.make_node("Loop", ["k", "", "grown"], ["doubled"], body=inner)], "gb",
                       [i64("i", []), b("c", []), f32("acc", None)], [b("co", []), f32("doubled", None)])
check("loop_grow_nested", model([helper.make_node("Loop", ["m", "", "a0"], ["af"], body=gb)], [i64("m", []), f32("a0", [1])], [f32("af")],
      [numpy_helper.from_array(np.array([1], np.int64), "shp"), numpy_helper.from_array(np.array(2, np.int64), "k"),
       numpy_helper.from_array(np.array(2, np.float32), "two")]),
      {"m": np.array(4, np.int64), "a0": np.array([0.5], np.float32)})
# SequenceMap over an empty sequence, and with a tensor extra input
mb = helper.make_graph([helper.make_node("Add", ["e", "t"], ["o"])], "mb", [f32("e", None), f32("t", None)], [f32("o", None)])
check("seqmap_split", model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0),
                             helper.make_node("SequenceMap", ["s", "t"], ["r"], body=mb), helper.make_node("ConcatFromSequence", ["r"], ["y"], axis=0)],
                            [f32("x", [3, 2]), f32("t", [2])], [f32("y")], opset=17),
      {"x": np.arange(6, dtype=np.float32).reshape(3, 2), "t": np.array([10, 20], np.float32)})
# OptionalGetElement of an empty optional: an error in both
check("optional_empty_get", model([helper.make_node("Optional", [], ["o"], type=helper.make_tensor_type_proto(T.FLOAT, None)),
                                   helper.make_node("OptionalGetElement", ["o"], ["y"])], [f32("x", [1])], [f32("y")], opset=18),
      {"x": np.ones(1, np.float32)})
# If with cond as a [1] tensor
tb = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"])], "t", [], [f32("nx")])
eb = helper.make_graph([helper.make_node("Abs", ["x"], ["ax"])], "e", [], [f32("ax")])
check("if_cond_vec", model([helper.make_node("If", ["c"], ["y"], then_branch=tb, else_branch=eb)], [b("c", [1]), f32("x", [2])], [f32("y")]),
      {"c": np.array([True]), "x": np.array([1.5, -2], np.float32)})
