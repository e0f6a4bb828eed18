#!/usr/bin/env python3
"""A bit-level sample of the exact Pow (spec/exact-transcendentals.md section 10) against ONNX
Runtime 1.31.1 and numpy: one Pow node over 200000 seeded float32 pairs (|x| spread over e^-8..e^8
times a normal, exponents from a list of common values and uniform in [-4, 4], negative bases with
the integer exponents), run by `onemodel run --mode exact --engine reference`; then a scalar
exponent 2 and 3 over 100000 values. Prints, per oracle, how many elements have other bits and the
largest difference in ulps. Not a test (it needs the venv and a built binary); its output is
quoted in spec/exact-transcendentals.md section 10.6.

Usage: build/venv/bin/python tools/oracles/pow_sample.py build/<dir>/onemodel
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper


def model(inputs, initializers, n):
    g = helper.make_graph([helper.make_node("Pow", ["x", "y"], ["z"])], "pow",
                          [helper.make_tensor_value_info(name, TensorProto.FLOAT, [n] if shaped else [])
                           for name, shaped in inputs],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [n])], initializers)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)], ir_version=8)


def ulps(a, b):
    """|a - b| in units of the float32 ordering; two NaNs count as equal."""
    def key(v):
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.where(np.isnan(a) & np.isnan(b), 0, np.abs(key(a) - key(b)))


def ours(binary, m, feeds, d):
    onnx.save(m, os.path.join(d, "pow.onnx"))
    args = [binary, "run", os.path.join(d, "pow.onnx"), "--mode", "exact", "--engine", "reference", "--output-dir", d]
    for name, value in feeds.items():
        np.save(os.path.join(d, name + ".npy"), value)
        args += ["--input", f"{name}={os.path.join(d, name + '.npy')}"]
    subprocess.run(args, check=True, capture_output=True)
    return np.load(os.path.join(d, "z.npy"))


def report(label, z, ref, mask=None):
    u = ulps(z, ref) if mask is None else ulps(z[mask], ref[mask])
    print(f"  {label}: {u.size} elements, {np.count_nonzero(u)} with other bits, max {u.max()} ulp")


def main():
    binary = sys.argv[1]
    rng = np.random.default_rng(10)
    n = 200000
    x = np.abs(rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(np.float32)
    common = np.array([0.5, -0.5, 1.5, 2.0, 3.0, -1.0, -2.0, 4.0, 1 / 3, 2.5, 0.1, 7.0], np.float32)
    y = rng.choice(common, n)
    y = np.where(rng.uniform(size=n) < 0.3, rng.uniform(-4, 4, n).astype(np.float32), y).astype(np.float32)
    x = np.where((rng.uniform(size=n) < 0.2) & (np.round(y) == y), -x, x).astype(np.float32)
    with tempfile.TemporaryDirectory() as d:
        m = model([("x", True), ("y", True)], [], n)
        z = ours(binary, m, {"x": x, "y": y}, d)
        z_ort = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x, "y": y})[0]
        with np.errstate(all="ignore"):
            z_np = np.power(x, y)
            z_cr = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
        cube = y == 3
        print("tensor exponent:")
        for label, ref in (("ONNX Runtime", z_ort), ("numpy float32", z_np), ("numpy float64 rounded to float32", z_cr)):
            report(label + ", y = 3", z, ref, cube)
            report(label + ", other y", z, ref, ~cube)
        print(f"  NaN positions equal to ONNX Runtime's: {np.array_equal(np.isnan(z), np.isnan(z_ort))}")
        print("scalar exponent (a constant, as exporters write it):")
        xs = (rng.standard_normal(100000) * 3).astype(np.float32)
        for e in (2.0, 3.0):
            m = model([("x", True)], [helper.make_tensor("y", TensorProto.FLOAT, [], [e])], xs.size)
            z = ours(binary, m, {"x": xs}, d)
            z_ort = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": xs})[0]
            report(f"ONNX Runtime, y = {e:g}", z, z_ort)


if __name__ == "__main__":
    main()
