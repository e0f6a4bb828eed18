#!/usr/bin/env python3
"""`onemodel run` against hostile names and paths (docs/command-line.md, run; issue 11 defect 8):

  run_names_check.py ONEMODEL WORK_DIR

1. A model whose output names hold a newline, a carriage return, a space, a backslash, a tab, DEL
   and a non-ASCII character: every output prints as exactly one line whose first field is the
   name escaped as documented (written out here by hand from the documented rule, not by the
   tool), so the newline cannot forge a line.
2. A FIFO and a directory given as the model (status 3, Io) and as an input file (status 5):
   refused at once. Each run has a 20 s limit, so a tool that blocks on the FIFO fails the test
   instead of hanging it.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

# name -> its escaped form under the documented rule.
NAMES = {
    "plain_name-1.0": "plain_name-1.0",
    "y\nforged float [1] sha256=00": "y\\x0aforged\\x20float\\x20[1]\\x20sha256=00",
    "cr\rtab\tdel\x7f": "cr\\x0dtab\\x09del\\x7f",
    "back\\slash": "back\\\\slash",
    "caf\u00e9": "caf\\xc3\\xa9",
}


def run(args, limit=20):
    return subprocess.run(args, capture_output=True, text=True, timeout=limit)


def fail(message, result=None):
    print("FAIL:", message)
    if result is not None:
        print("status", result.returncode, "\nstdout:\n" + result.stdout + "\nstderr:\n" + result.stderr)
    sys.exit(1)


def main():
    tool, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    names = list(NAMES)
    nodes = [helper.make_node("Identity", ["x"], [name], name=f"n{k}") for k, name in enumerate(names)]
    graph = helper.make_graph(nodes, "names", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1]) for name in names])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model_path = os.path.join(work, "names.onnx")
    onnx.save(model, model_path)
    x_path = os.path.join(work, "x.npy")
    np.save(x_path, np.array([1.5], dtype=np.float32))

    result = run([tool, "run", model_path, "--input", "x=" + x_path])
    if result.returncode != 0:
        fail("the run failed", result)
    lines = result.stdout.split("\n")
    if lines[-1] != "" or len(lines) - 1 != len(names):
        fail(f"expected {len(names)} lines", result)
    for line, name in zip(lines, names):
        fields = line.split(" ")
        if len(fields) != 4 or fields[0] != NAMES[name] or fields[1] != "float" or fields[2] != "[1]":
            fail(f"line {line!r} for name {name!r} (expected first field {NAMES[name]!r})", result)

    fifo = os.path.join(work, "fifo.onnx")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    directory = os.path.join(work, "dir.onnx")
    os.makedirs(directory, exist_ok=True)
    for path, kind in ((fifo, "a FIFO"), (directory, "a directory")):
        try:
            as_model = run([tool, "run", path])
            as_input = run([tool, "run", model_path, "--input", "x=" + path])
        except subprocess.TimeoutExpired:
            fail(f"blocked on {kind}")
        if as_model.returncode != 3 or f"not a regular file ({kind})" not in as_model.stderr:
            fail(f"{kind} as the model", as_model)
        if as_input.returncode != 5 or f"not a regular file ({kind})" not in as_input.stderr:
            fail(f"{kind} as an input", as_input)
    os.remove(fifo)
    print("ok")


if __name__ == "__main__":
    main()
