#!/usr/bin/env python3
"""End-to-end check of `onemodel run` (docs/command-line.md, run) on one backend-test case:

  run_check.py ONEMODEL CASE_DIR WORK_DIR

Converts the case's input_N.pb files to .npy with onnx.numpy_helper, runs the command with
--output-dir, and checks, with NumPy and hashlib as the oracles: one line per output
`<name> <type> [<dims>] sha256=<hex>` whose hash is that of the expected output's little-endian
bytes, and each DIR/<name>.npy equal to the recorded output_N.pb.
"""
import hashlib
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

TYPE_NAMES = {np.dtype("float32"): "float", np.dtype("float64"): "double", np.dtype("int64"): "int64",
              np.dtype("int32"): "int32", np.dtype("bool"): "bool", np.dtype("uint8"): "uint8"}


def load_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def main():
    tool, case, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    data = os.path.join(case, "test_data_set_0")
    model = onnx.load(os.path.join(case, "model.onnx"))
    args = [tool, "run", os.path.join(case, "model.onnx"), "--engine", "reference", "--output-dir", work]
    for k, value in enumerate(model.graph.input):
        name, array = load_tensor(os.path.join(data, f"input_{k}.pb"))
        npy = os.path.join(work, f"input_{k}.npy")
        np.save(npy, array)
        args += ["--input", f"{value.name}={npy}"]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        print("status", result.returncode, result.stderr)
        return 1
    lines = result.stdout.splitlines()
    if len(lines) != len(model.graph.output):
        print("expected one line per output, got:", result.stdout)
        return 1
    for k, (line, output) in enumerate(zip(lines, model.graph.output)):
        _, want = load_tensor(os.path.join(data, f"output_{k}.pb"))
        dims = "[" + ", ".join(str(d) for d in want.shape) + "]"
        digest = hashlib.sha256(np.ascontiguousarray(want).astype(want.dtype.newbyteorder("<")).tobytes()).hexdigest()
        expected = f"{output.name} {TYPE_NAMES[want.dtype]} {dims} sha256={digest}"
        if line != expected:
            print(f"line {k}: {line!r}\n expected {expected!r}")
            return 1
        got = np.load(os.path.join(work, re.sub(r"[^A-Za-z0-9._-]", "_", output.name) + ".npy"))
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want, equal_nan=True):
            print(f"{output.name}.npy differs from output_{k}.pb")
            return 1
    print("ok:", " | ".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
