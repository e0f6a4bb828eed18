"""python -m onemodel info MODEL | run MODEL --input NAME=FILE.npy ... [--mode exact] ...

`run` prints one line per output, `<name> <type> [<dims>] sha256=<hex>`, the hash over the
output's raw little-endian element bytes in row-major order: the C++ command line's line
(tools/cli/cmd_run.cpp), so exact-mode hashes of the two can be compared.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from typing import List, Optional

import numpy as np

from . import Error, Session
from ._session import _ONNX_NAMES, _CODE_OF_NUMPY


def _escaped(name: str) -> str:
    # tools/cli/escaped_name.cpp: bytes outside 0x21..0x7e as \xNN, backslash doubled.
    out = []
    for byte in name.encode("utf-8"):
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 < byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def _dims(shape) -> str:
    if shape is None:
        return "[unknown rank]"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def output_line(name: str, array: np.ndarray, element_type: Optional[str] = None) -> str:
    """The C++ CLI's line for one output."""
    if element_type is None:
        element_type = _ONNX_NAMES[_CODE_OF_NUMPY[(array.dtype.kind, array.dtype.itemsize)]]
    data = np.ascontiguousarray(array)
    if data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    digest = hashlib.sha256(data.tobytes()).hexdigest()
    return f"{_escaped(name)} {element_type} [{', '.join(str(d) for d in array.shape)}] sha256={digest}"


def _info(args) -> int:
    session = Session(args.model)
    print(f"model: {args.model}")
    print(f"kernel path: {session.kernel_path}")
    print("inputs:")
    for i in session.inputs:
        print(f"  {i.name}: {i.element_type} {_dims(i.shape)}" + ("" if i.kind == "tensor" else f" ({i.kind})"))
    print("outputs:")
    for o in session.outputs:
        print(f"  {o.name}: {o.element_type} {_dims(o.shape)}" + ("" if o.kind == "tensor" else f" ({o.kind})"))
    return 0


def _run(args) -> int:
    feeds = {}
    for item in args.input:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise SystemExit(f"run: --input takes NAME=FILE.npy, not '{item}'")
        feeds[name] = np.load(path, allow_pickle=False)
    session = Session(args.model, mode=args.mode, engine=args.engine, threads=args.threads)
    results = session.run(feeds)
    types = {o.name: o.element_type for o in session.outputs}
    for name, array in results.items():
        print(output_line(name, array, types.get(name) if types.get(name) != "undefined" else None))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onemodel", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="the model's inputs and outputs")
    info.add_argument("model")
    run = sub.add_parser("run", help="run once and print each output's type, shape and sha256")
    run.add_argument("model")
    run.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    run.add_argument("--mode", choices=["fast", "exact"], default="fast")
    run.add_argument("--engine", choices=["optimized", "reference"], default="optimized")
    run.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        return _info(args) if args.command == "info" else _run(args)
    except Error as e:
        print(str(e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
