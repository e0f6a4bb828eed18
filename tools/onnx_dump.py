#!/usr/bin/env python3
"""The structural dump (spec/dump.md) written from the `onnx` Python package.

Independent of the C++ importer: it uses only `onnx.load` and the protobuf message fields, and
converts typed tensor fields to the raw little-endian layout itself (spec/onnx-import.md
section 3), without numpy_helper.

  onnx_dump.py MODEL                       dump one model to stdout
  onnx_dump.py --each LIST --output-dir D  dump every model named in LIST (one path a line) to
                                           D/<k>.txt, k = the line's index from 0; a model that
                                           onnx cannot load gets `error <message>` as its dump
"""
import argparse
import hashlib
import os
import struct
import sys

import onnx
from onnx import AttributeProto, TensorProto

ATTR_NAMES = [
    "UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS",
    "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS",
]

_PRINTABLE = {b: chr(b) for b in range(0x20, 0x7F)}
_PRINTABLE[ord('"')] = '\\"'
_PRINTABLE[ord("\\")] = "\\\\"


def q(value):
    """spec/dump.md section 2: quoted bytes."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogateescape")
    return '"' + "".join(_PRINTABLE.get(b, "\\x%02x" % b) for b in value) + '"'


def fbits(value):
    """A float field's value as its float32 bit pattern (protobuf stores floats as 32 bits)."""
    return "%08x" % struct.unpack("<I", struct.pack("<f", value))[0]


def doc(text, sep):
    data = text.encode("utf-8", "surrogateescape")
    return "%d%s%s" % (len(data), sep, hashlib.sha256(data).hexdigest())


def dims_text(dims):
    return "[" + ",".join(str(d) for d in dims) + "]"


def type_text(tp):
    """spec/dump.md section 3."""
    which = tp.WhichOneof("value")
    if which is None:
        return "none"
    if which in ("tensor_type", "sparse_tensor_type"):
        t = getattr(tp, which)
        if t.HasField("shape"):
            parts = []
            for d in t.shape.dim:
                kind = d.WhichOneof("value")
                if kind == "dim_value":
                    parts.append(str(d.dim_value))
                elif kind == "dim_param":
                    parts.append(q(d.dim_param))
                else:
                    parts.append("?")
            shape = "[" + ",".join(parts) + "]"
        else:
            shape = "*"
        head = "tensor" if which == "tensor_type" else "sparse_tensor"
        return "%s(%d,%s)" % (head, t.elem_type, shape)
    if which == "sequence_type":
        return "sequence(%s)" % type_text(tp.sequence_type.elem_type)
    if which == "optional_type":
        return "optional(%s)" % type_text(tp.optional_type.elem_type)
    if which == "map_type":
        return "map(%d,%s)" % (tp.map_type.key_type, type_text(tp.map_type.value_type))
    if which == "opaque_type":
        return "opaque(%s,%s)" % (q(tp.opaque_type.domain), q(tp.opaque_type.name))
    return "none"


# Element types by the typed field that serves them (spec/onnx-import.md section 3).
_FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.COMPLEX64}
_DOUBLE_TYPES = {TensorProto.DOUBLE, TensorProto.COMPLEX128}
_16BIT = {TensorProto.UINT16, TensorProto.INT16, TensorProto.FLOAT16, TensorProto.BFLOAT16}
_8BIT = {TensorProto.UINT8, TensorProto.INT8, 17, 18, 19, 20, 24}
_PACKED_BYTES = {21, 22, 23, 25, 26}  # 4-bit and 2-bit types: each int32 entry is one packed byte
_6BIT = {27, 28}


def pack_6bit(values):
    """Elements of 6 bits as a little-endian, LSB-first bit stream (onnx.proto raw_data)."""
    out = bytearray((len(values) * 6 + 7) // 8)
    for k, v in enumerate(values):
        bit = 6 * k
        v &= 0x3F
        out[bit // 8] |= (v << (bit % 8)) & 0xFF
        if bit % 8 > 2:
            out[bit // 8 + 1] |= v >> (8 - bit % 8)
    return bytes(out)


def raw_bytes(t):
    """The tensor's values in the raw layout: raw_data (external data is loaded by onnx.load into
    raw_data), else the typed field for the element type, converted here."""
    dt = t.data_type
    if t.HasField("raw_data"):
        return bytes(t.raw_data)
    if dt in _FLOAT_TYPES:
        return struct.pack("<%df" % len(t.float_data), *t.float_data)
    if dt in _DOUBLE_TYPES:
        return struct.pack("<%dd" % len(t.double_data), *t.double_data)
    if dt == TensorProto.INT64:
        return struct.pack("<%dq" % len(t.int64_data), *t.int64_data)
    if dt == TensorProto.UINT64:
        return struct.pack("<%dQ" % len(t.uint64_data), *t.uint64_data)
    if dt == TensorProto.UINT32:
        return struct.pack("<%dI" % len(t.uint64_data), *[v & 0xFFFFFFFF for v in t.uint64_data])
    data = list(t.int32_data)
    if dt == TensorProto.INT32:
        return struct.pack("<%di" % len(data), *data)
    if dt in _16BIT:
        return struct.pack("<%dH" % len(data), *[v & 0xFFFF for v in data])
    if dt == TensorProto.BOOL:
        return bytes(1 if v != 0 else 0 for v in data)
    if dt in _8BIT or dt in _PACKED_BYTES:
        return bytes(v & 0xFF for v in data)
    if dt in _6BIT:
        return pack_6bit(data)
    return b""


def tensor_text(t):
    """spec/dump.md section 4."""
    h = hashlib.sha256()
    if t.data_type == TensorProto.STRING:
        length = 0
        for s in t.string_data:
            h.update(struct.pack("<Q", len(s)))
            h.update(s)
            length += 8 + len(s)
    else:
        data = raw_bytes(t)
        h.update(data)
        length = len(data)
    text = "%s dtype=%d dims=%s bytes=%d sha256=%s" % (
        q(t.name), t.data_type, dims_text(t.dims), length, h.hexdigest())
    if t.doc_string:
        text += " doc_string=" + doc(t.doc_string, ":")
    return text


def attr_type(a):
    """The declared type, or the type inferred from the field set (spec/onnx-import.md section 2)."""
    if a.type != 0:
        return a.type
    A = AttributeProto
    for field, code in (("f", A.FLOAT), ("i", A.INT), ("s", A.STRING), ("t", A.TENSOR),
                        ("g", A.GRAPH), ("sparse_tensor", A.SPARSE_TENSOR), ("tp", A.TYPE_PROTO)):
        if a.HasField(field):
            return code
    for field, code in (("floats", A.FLOATS), ("ints", A.INTS), ("strings", A.STRINGS),
                        ("tensors", A.TENSORS), ("graphs", A.GRAPHS),
                        ("sparse_tensors", A.SPARSE_TENSORS), ("type_protos", A.TYPE_PROTOS)):
        if len(getattr(a, field)) > 0:
            return code
    return 0


class Dumper:
    def __init__(self):
        self.lines = []

    def line(self, level, text):
        self.lines.append("  " * level + text)

    def doc_line(self, level, text):
        if text:
            self.line(level, "doc_string " + doc(text, " "))

    def names(self, level, keyword, names):
        self.line(level, " ".join([keyword] + [q(n) for n in names]))

    def sparse(self, level, head, sp):
        self.line(level, "%s dims=%s" % (head, dims_text(sp.dims)))
        self.line(level + 1, "values " + tensor_text(sp.values))
        self.line(level + 1, "indices " + tensor_text(sp.indices))

    def value_info(self, level, keyword, k, vi):
        text = "%s %d %s %s" % (keyword, k, q(vi.name), type_text(vi.type))
        if vi.doc_string:
            text += " doc_string=" + doc(vi.doc_string, ":")
        self.line(level, text)

    def graph_body(self, level, g):
        self.doc_line(level, g.doc_string)
        for k, vi in enumerate(g.input):
            self.value_info(level, "input", k, vi)
        for k, vi in enumerate(g.output):
            self.value_info(level, "output", k, vi)
        for k, vi in enumerate(g.value_info):
            self.value_info(level, "value_info", k, vi)
        for k, t in enumerate(g.initializer):
            self.line(level, "initializer %d %s" % (k, tensor_text(t)))
        for k, sp in enumerate(g.sparse_initializer):
            self.sparse(level, "sparse_initializer %d" % k, sp)
        for k, n in enumerate(g.node):
            self.node(level, k, n)

    def node(self, level, k, n):
        self.line(level, "node %d %s %s domain=%s overload=%s" % (
            k, q(n.name), q(n.op_type), q(n.domain), q(n.overload)))
        self.names(level + 1, "inputs", n.input)
        self.names(level + 1, "outputs", n.output)
        self.doc_line(level + 1, n.doc_string)
        for j, a in enumerate(n.attribute):
            self.attribute(level + 1, "attribute %d" % j, a)

    def attribute(self, level, head, a):
        A = AttributeProto
        code = attr_type(a)
        name = ATTR_NAMES[code] if 0 <= code < len(ATTR_NAMES) else "UNKNOWN"
        text = "%s %s %d %s" % (head, q(a.name), code, name)
        if a.ref_attr_name:
            self.line(level, text + " ref=" + q(a.ref_attr_name))
            self.doc_line(level + 1, a.doc_string)
            return
        if code == A.FLOAT:
            text += " f=" + fbits(a.f)
        elif code == A.INT:
            text += " i=%d" % a.i
        elif code == A.STRING:
            text += " s=" + q(a.s)
        elif code == A.FLOATS:
            text += " floats=[" + ",".join(fbits(v) for v in a.floats) + "]"
        elif code == A.INTS:
            text += " ints=" + dims_text(a.ints)
        elif code == A.STRINGS:
            text += " strings=[" + ",".join(q(v) for v in a.strings) + "]"
        elif code == A.TYPE_PROTO:
            text += " tp=" + type_text(a.tp)
        elif code == A.TYPE_PROTOS:
            text += " type_protos=[" + ",".join(type_text(v) for v in a.type_protos) + "]"
        elif code == A.TENSORS:
            text += " count=%d" % len(a.tensors)
        elif code == A.SPARSE_TENSORS:
            text += " count=%d" % len(a.sparse_tensors)
        elif code == A.GRAPHS:
            text += " count=%d" % len(a.graphs)
        self.line(level, text)
        below = level + 1
        self.doc_line(below, a.doc_string)
        if code == A.TENSOR:
            self.line(below, "tensor 0 " + tensor_text(a.t))
        elif code == A.TENSORS:
            for k, t in enumerate(a.tensors):
                self.line(below, "tensor %d %s" % (k, tensor_text(t)))
        elif code == A.SPARSE_TENSOR:
            self.sparse(below, "sparse_tensor 0", a.sparse_tensor)
        elif code == A.SPARSE_TENSORS:
            for k, sp in enumerate(a.sparse_tensors):
                self.sparse(below, "sparse_tensor %d" % k, sp)
        elif code == A.GRAPH:
            self.line(below, "graph 0 " + q(a.g.name))
            self.graph_body(below + 1, a.g)
        elif code == A.GRAPHS:
            for k, g in enumerate(a.graphs):
                self.line(below, "graph %d %s" % (k, q(g.name)))
                self.graph_body(below + 1, g)

    def function(self, k, f):
        self.line(0, "function %d %s domain=%s overload=%s" % (
            k, q(f.name), q(f.domain), q(f.overload)))
        self.doc_line(1, f.doc_string)
        self.names(1, "inputs", f.input)
        self.names(1, "outputs", f.output)
        self.names(1, "attribute_names", f.attribute)
        for j, a in enumerate(f.attribute_proto):
            self.attribute(1, "attribute_default %d" % j, a)
        for o in f.opset_import:
            self.line(1, "opset_import %s %d" % (q(o.domain), o.version))
        for j, n in enumerate(f.node):
            self.node(1, j, n)


def dump(model):
    """spec/dump.md section 5."""
    d = Dumper()
    d.line(0, "onemodel-dump 1")
    d.line(0, "ir_version %d" % model.ir_version)
    d.line(0, "producer_name " + q(model.producer_name))
    d.line(0, "producer_version " + q(model.producer_version))
    d.line(0, "domain " + q(model.domain))
    d.line(0, "model_version %d" % model.model_version)
    d.doc_line(0, model.doc_string)
    for o in model.opset_import:
        d.line(0, "opset_import %s %d" % (q(o.domain), o.version))
    for p in model.metadata_props:
        d.line(0, "metadata_prop %s %s" % (q(p.key), q(p.value)))
    d.line(0, "graph " + q(model.graph.name))
    d.graph_body(1, model.graph)
    for k, f in enumerate(model.functions):
        d.function(k, f)
    return "\n".join(d.lines) + "\n"


def dump_file(path):
    return dump(onnx.load(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", nargs="?")
    parser.add_argument("--each", help="file listing one model path a line")
    parser.add_argument("--output-dir")
    args = parser.parse_args()
    if args.each:
        if not args.output_dir:
            parser.error("--each needs --output-dir")
        os.makedirs(args.output_dir, exist_ok=True)
        with open(args.each, encoding="utf-8") as f:
            paths = [line.rstrip("\n") for line in f if line.rstrip("\n")]
        for k, path in enumerate(paths):
            try:
                text = dump_file(path)
            except Exception as e:  # noqa: BLE001 - any failure is reported in the dump itself
                text = "error %s\n" % (str(e).splitlines() or [type(e).__name__])[0]
            with open(os.path.join(args.output_dir, "%d.txt" % k), "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
        return 0
    if not args.model:
        parser.error("a model path or --each is required")
    sys.stdout.write(dump_file(args.model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
