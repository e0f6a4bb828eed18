#!/usr/bin/env python3
"""Converts ONNX models to the OneModel format and compares, byte for byte, every graph
initializer of the converted file (read with tools/format_read.py, written from the format text
alone) with the ONNX file's tensors read by the `onnx` package (numpy_helper.to_array, little
endian). spec/format.md section 6.

    format_check.py --cli PATH/onemodel MODEL.onnx...     convert with `onemodel convert IN OUT`
    format_check.py --converted FILE.onemodel MODEL.onnx  compare an already converted file
Exit status 0 when every initializer matches, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_read  # noqa: E402

STRING = 8
SUB_BYTE = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2}  # dtype -> bits, packed low bits first


def onnx_bytes(tensor):
    """The raw little-endian layout of an ONNX tensor, from the onnx package's own reading."""
    if tensor.data_type == STRING:
        return [bytes(s) for s in tensor.string_data]
    bits = format_read.BITS[tensor.data_type]
    if bits == 6:
        # 6-bit floats: numpy_helper has no packed form; raw_data is the layout itself.
        if not tensor.HasField("raw_data"):
            raise ValueError("6-bit tensor without raw_data cannot be compared")
        return bytes(tensor.raw_data)
    array = numpy_helper.to_array(tensor)
    if tensor.data_type in SUB_BYTE:
        # to_array unpacks one element per byte; pack again as onnx.proto describes.
        per_byte = 8 // SUB_BYTE[tensor.data_type]
        mask = (1 << SUB_BYTE[tensor.data_type]) - 1
        flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8) & mask
        pad = (-len(flat)) % per_byte
        flat = np.concatenate([flat, np.zeros(pad, dtype=np.uint8)]).reshape(-1, per_byte)
        packed = np.zeros(len(flat), dtype=np.uint8)
        for k in range(per_byte):
            packed |= (flat[:, k] << (k * SUB_BYTE[tensor.data_type])).astype(np.uint8)
        return packed.tobytes()
    array = np.ascontiguousarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array.tobytes()


def compare(onnx_path, converted_path):
    """Returns a list of problems (empty when every initializer matches) and the count compared."""
    model = onnx.load(onnx_path)  # external data loaded too
    ours = format_read.read_file(converted_path)
    problems = []
    theirs = list(model.graph.initializer)
    mine = ours["graph"]["initializers"]
    if len(theirs) != len(mine):
        return [f"{len(theirs)} initializers in ONNX, {len(mine)} converted"], 0
    for t, m in zip(theirs, mine):
        if t.name != m["name"] or t.data_type != m["dtype"] or list(t.dims) != m["dims"]:
            problems.append(f"{t.name}: name, dtype or dims differ ({m['name']}, {m['dtype']}, {m['dims']})")
            continue
        expected = onnx_bytes(t)
        got = m["strings"] if t.data_type == STRING else m["bytes"].tobytes()
        if expected != got:
            problems.append(f"{t.name}: bytes differ")
    return problems, len(theirs)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--cli", help="the onemodel command-line program")
    group.add_argument("--converted", help="an already converted .onemodel file (one ONNX model only)")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args(argv)
    if args.converted and len(args.models) != 1:
        parser.error("--converted takes exactly one ONNX model")
    failed = 0
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, path in enumerate(args.models):
            converted = args.converted
            if args.cli:
                converted = os.path.join(tmp, f"{k}.onemodel")
                run = subprocess.run([args.cli, "convert", path, converted], capture_output=True, text=True)
                if run.returncode != 0:
                    print(f"FAIL {path}: convert exited {run.returncode}: {run.stderr.strip()}")
                    failed += 1
                    continue
            try:
                problems, count = compare(path, converted)
            except (format_read.FormatError, ValueError) as e:
                problems, count = [str(e)], 0
            total += count
            if problems:
                failed += 1
                for p in problems:
                    print(f"FAIL {path}: {p}")
            else:
                print(f"ok   {path}: {count} initializers identical")
    print(f"{len(args.models) - failed} of {len(args.models)} models match ({total} initializers compared)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
