#!/usr/bin/env python3
"""Compact weights on the command line (docs/command-line.md, run and convert; spec/session.md
section 9; spec/format.md section 2.5):

  compact_weights_check.py ONEMODEL MODEL.onnx WORK_DIR

For binary16 and bfloat16:
1. `run --weights F` prints the same output hashes as `run` on a copy of the model whose product
   weights were rounded beforehand, in both engines. The rounding here is independent of the
   library: binary16 by NumPy's float16 cast (IEEE round to nearest even), bfloat16 by choosing the nearer of the two
   neighbouring bfloat16 values in float64 (ties to the even one). Fast and exact mode.
2. `convert --weights F` writes a file about half the size of the plain conversion, whose
   manifest marks the rounded tensors compact, and which runs with the same hashes as
   `run --weights F` on the original.
3. Unrounded runs differ (the option did something), and bad values are usage errors.
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

PRODUCTS = {"MatMul", "Gemm", "Conv"}


def compactable(model):
    """Names of float32 initializers with >= 1024 values read only as input 1 of one product."""
    reads = {}
    for node in model.graph.node:
        for k, name in enumerate(node.input):
            reads.setdefault(name, []).append((node.op_type, k))
    inputs = {i.name for i in model.graph.input}
    outputs = {o.name for o in model.graph.output}
    names = []
    for init in model.graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT or init.name in inputs or init.name in outputs:
            continue
        if int(np.prod(init.dims)) < 1024:
            continue
        r = reads.get(init.name, [])
        if len(r) == 1 and r[0][0] in PRODUCTS and r[0][1] == 1:
            names.append(init.name)
    return names


def round_bfloat16(a):
    """Each float32 to the nearer bfloat16 (ties to an even last bit), as float32."""
    bits = a.astype(np.float32).view(np.uint32)
    low = (bits & np.uint32(0xFFFF0000)).view(np.float32).astype(np.float64)
    high_bits = (bits & np.uint32(0xFFFF0000)) + np.uint32(0x10000)
    high = high_bits.view(np.float32).astype(np.float64)
    x = a.astype(np.float64)
    dl, dh = np.abs(x - low), np.abs(high - x)
    low_even = ((bits >> np.uint32(16)) & np.uint32(1)) == 0
    pick_low = (dl < dh) | ((dl == dh) & low_even)
    out = np.where(pick_low, low, high).astype(np.float32)
    return out


def prerounded(model_path, fmt, out_path):
    model = onnx.load(model_path)
    names = set(compactable(model))
    for init in model.graph.initializer:
        if init.name not in names:
            continue
        a = numpy_helper.to_array(init).astype(np.float32)
        r = a.astype(np.float16).astype(np.float32) if fmt == "binary16" else round_bfloat16(a)
        init.CopyFrom(numpy_helper.from_array(r, init.name))
    onnx.save(model, out_path)
    return names


def run(tool, model, x_npy, *extra):
    args = [tool, "run", model, "--input", f"x={x_npy}", *extra]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: status {result.returncode}\n{result.stderr}")
    return result.stdout


def manifest_of(path):
    with open(path, "rb") as f:
        header = f.read(64)
        manifest_length = struct.unpack_from("<Q", header, 24)[0]
        return json.loads(f.read(manifest_length))


def main():
    tool, model_path, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    model = onnx.load(model_path)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    rng = np.random.default_rng(7)
    x_npy = os.path.join(work, "x.npy")
    np.save(x_npy, rng.standard_normal(shape).astype(np.float32))
    failures = []

    plain_file = os.path.join(work, "plain.onemodel")
    subprocess.run([tool, "convert", model_path, plain_file], check=True, capture_output=True)
    for fmt in ("binary16", "bfloat16"):
        rounded = os.path.join(work, f"rounded-{fmt}.onnx")
        names = prerounded(model_path, fmt, rounded)
        if not names:
            failures.append(f"{fmt}: the model has no compactable weight")
        converted = os.path.join(work, f"{fmt}.onemodel")
        subprocess.run([tool, "convert", "--weights", fmt, model_path, converted], check=True, capture_output=True)
        for mode in ("fast", "exact"):
            for engine in ("reference", "optimized"):
                compact = run(tool, model_path, x_npy, "--weights", fmt, "--mode", mode, "--engine", engine)
                want = run(tool, rounded, x_npy, "--mode", mode, "--engine", engine)
                if compact != want:
                    failures.append(f"{fmt} {mode} {engine}: run --weights gives\n{compact} the rounded model gives\n{want}")
            if run(tool, model_path, x_npy, "--mode", mode) == compact:
                failures.append(f"{fmt} {mode}: the unrounded model gives the same hashes (nothing was rounded?)")
            from_file = run(tool, converted, x_npy, "--mode", mode)
            if from_file != compact:
                failures.append(f"{fmt} {mode}: the converted file gives\n{from_file} run --weights gives\n{compact}")
            # A converted file runs the same whatever --weights says: its weights are already compact.
            if run(tool, converted, x_npy, "--mode", mode, "--weights", "float32") != compact:
                failures.append(f"{fmt} {mode}: the converted file with --weights float32 differs")
        ratio = os.path.getsize(converted) / os.path.getsize(plain_file)
        if not 0.45 <= ratio <= 0.56:
            failures.append(f"{fmt}: converted file is {ratio:.3f} of the float32 conversion, not about half")
        marked = {t["name"]: t for t in manifest_of(converted)["graph"]["initializers"] if t.get("compact") == 1}
        want_type = 10 if fmt == "binary16" else 16
        if set(marked) != names or any(t["dtype"] != want_type for t in marked.values()):
            failures.append(f"{fmt}: compact marks {sorted(marked)} (dtypes {[t['dtype'] for t in marked.values()]}),"
                            f" expected {sorted(names)} with dtype {want_type}")
        print(f"{fmt}: {len(names)} weights compacted, file {ratio:.3f} of float32")

    for args in (["run", model_path, "--weights", "float16"], ["convert", "--weights", "float32", model_path,
                                                               os.path.join(work, "no.onemodel")]):
        result = subprocess.run([tool, *args], capture_output=True, text=True)
        if result.returncode != 2 or "--weights takes" not in result.stderr:
            failures.append(f"{' '.join(args)}: status {result.returncode}, stderr {result.stderr!r}")

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
