#!/usr/bin/env python3
"""A reader of the OneModel format written from spec-source/format.md alone (numpy, json, base64).

Checks the header (section 1.1) against the real file length, parses the manifest with exact
integers (section 1.2), and returns every tensor with its bytes as a numpy uint8 view of the
data region (section 2.5). Raises FormatError(kind, path, message) on anything the text forbids.

    format_read.py FILE          prints one line per graph initializer
"""
import base64
import binascii
import json
import struct
import sys

import numpy as np

MAGIC = b"ONEMODEL"
MAX_U64 = 2**63 - 1
MAX_MANIFEST = 512 * 2**20
MAX_NESTING = 64
MAX_TENSOR_BYTES = 2**31 - 1

# format.md section 2.5: bits per element.
BITS = {}
for codes, bits in (((1, 6, 12), 32), ((2, 3, 9, 17, 18, 19, 20, 24), 8), ((4, 5, 10, 16), 16),
                    ((7, 11, 13, 14), 64), ((15,), 128), ((21, 22, 23), 4), ((25, 26), 2), ((27, 28), 6)):
    for c in codes:
        BITS[c] = bits
STRING = 8


class FormatError(Exception):
    def __init__(self, kind, path, message):
        super().__init__(f"{kind}: {message} (at {path})")
        self.kind, self.path = kind, path


class _Decimal:
    """A JSON number written with a fraction or exponent: never valid where an integer is."""
    def __init__(self, text):
        self.text = text


def _no_constant(name):
    raise FormatError("Malformed", "manifest", f"invalid JSON constant {name}")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Reader:
    def __init__(self, data):
        self.data = data

    # -- helpers -----------------------------------------------------------------------------
    def obj(self, v, path):
        if not isinstance(v, dict):
            raise FormatError("Malformed", path, "expected an object")
        return v

    def arr(self, v, path):
        if not isinstance(v, list):
            raise FormatError("Malformed", path, "expected an array")
        return v

    def req(self, o, key, path):
        if key not in o:
            raise FormatError("Malformed", f"{path}.{key}", "missing required field")
        return o[key]

    def integer(self, v, path):
        if not _is_int(v):
            raise FormatError("Malformed", path, "expected an integer")
        if not -2**63 <= v < 2**63:
            raise FormatError("Malformed", path, "integer outside int64")
        return v

    def string(self, v, path):
        if not isinstance(v, str):
            raise FormatError("Malformed", path, "expected a string")
        return v

    def opt_str(self, o, key, path):
        return self.string(o[key], f"{path}.{key}") if key in o else ""

    def opt_int(self, o, key, path):
        return self.integer(o[key], f"{path}.{key}") if key in o else 0

    def b64(self, v, path):
        s = self.string(v, path)
        try:
            raw = base64.b64decode(s.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError):
            raise FormatError("Malformed", path, "bad base64")
        if len(s) % 4 != 0 or base64.b64encode(raw).decode("ascii") != s:
            raise FormatError("Malformed", path, "non-canonical base64")
        return raw

    def items(self, o, key, path):
        if key not in o:
            return []
        return list(enumerate(self.arr(o[key], f"{path}.{key}")))

    def dims(self, v, path):
        out = []
        for i, d in enumerate(self.arr(v, path)):
            d = self.integer(d, f"{path}[{i}]")
            if d < 0:
                raise FormatError("InvalidModel", f"{path}[{i}]", "negative dimension")
            out.append(d)
        return out

    # -- schema ------------------------------------------------------------------------------
    def tensor(self, v, path):
        o = self.obj(v, path)
        dtype = self.integer(self.req(o, "dtype", path), f"{path}.dtype")
        if dtype != STRING and dtype not in BITS:
            raise FormatError("Unsupported", f"{path}.dtype", f"unknown dtype {dtype}")
        dims = self.dims(self.req(o, "dims", path), f"{path}.dims")
        count = 1
        for d in dims:
            count *= d  # Python integers do not overflow
        if count >= 2**60:
            raise FormatError("InvalidModel", f"{path}.dims", "element count reaches 2^60")
        t = {"name": self.opt_str(o, "name", path), "dtype": dtype, "dims": dims,
             "doc": self.opt_str(o, "doc", path)}
        if dtype == STRING:
            strings = self.arr(self.req(o, "strings", path), f"{path}.strings")
            if len(strings) != count:
                raise FormatError("InvalidModel", f"{path}.strings", "string count differs from element count")
            t["strings"] = [self.b64(s, f"{path}.strings[{i}]") for i, s in enumerate(strings)]
            return t
        expected = (count * BITS[dtype] + 7) // 8
        if expected > MAX_TENSOR_BYTES:
            raise FormatError("Unsupported", f"{path}.dims", "tensor over 2^31-1 bytes")
        data = self.obj(self.req(o, "data", path), f"{path}.data")
        offset = self.integer(self.req(data, "offset", f"{path}.data"), f"{path}.data.offset")
        length = self.integer(self.req(data, "length", f"{path}.data"), f"{path}.data.length")
        if offset < 0 or length < 0 or offset + length > len(self.data):
            raise FormatError("Malformed", f"{path}.data", "range outside the data region")
        if length > 0 and offset % 64 != 0:
            raise FormatError("Malformed", f"{path}.data.offset", "offset not a multiple of 64")
        if length != expected:
            raise FormatError("InvalidModel", f"{path}.data.length", "length does not match dims and dtype")
        t["bytes"] = self.data[offset:offset + length]
        return t

    def sparse(self, v, path):
        o = self.obj(v, path)
        return {"values": self.tensor(self.req(o, "values", path), f"{path}.values"),
                "indices": self.tensor(self.req(o, "indices", path), f"{path}.indices"),
                "dims": self.dims(o["dims"], f"{path}.dims") if "dims" in o else []}

    def type(self, v, path, depth):
        o = self.obj(v, path)
        if depth > MAX_NESTING:
            raise FormatError("Unsupported", path, "nesting over 64")
        kind = self.string(self.req(o, "kind", path), f"{path}.kind")
        t = {"kind": kind}
        if kind in ("tensor", "sparse_tensor"):
            t["elem"] = self.integer(self.req(o, "elem", path), f"{path}.elem")
            if "shape" in o:
                shape = []
                for i, d in enumerate(self.arr(o["shape"], f"{path}.shape")):
                    if d is None or isinstance(d, str):
                        shape.append(d)
                    else:
                        d = self.integer(d, f"{path}.shape[{i}]")
                        if d < 0:
                            raise FormatError("InvalidModel", f"{path}.shape[{i}]", "negative dimension")
                        shape.append(d)
                t["shape"] = shape
        elif kind in ("sequence", "optional"):
            t["inner"] = self.type(self.req(o, "inner", path), f"{path}.inner", depth + 1)
        elif kind == "map":
            t["key"] = self.integer(self.req(o, "key", path), f"{path}.key")
            t["inner"] = self.type(self.req(o, "inner", path), f"{path}.inner", depth + 1)
        elif kind == "opaque":
            t["domain"], t["name"] = self.opt_str(o, "domain", path), self.opt_str(o, "name", path)
        else:
            raise FormatError("Unsupported", f"{path}.kind", f"unknown type kind {kind}")
        return t

    def float_bits(self, v, path):
        b = self.integer(v, path)
        if not 0 <= b <= 0xFFFFFFFF:
            raise FormatError("Malformed", path, "float bits outside 32 bits")
        return np.array([b], dtype="<u4").view("<f4")[0]

    def attribute(self, v, path, depth):
        o = self.obj(v, path)
        a = {"name": self.string(self.req(o, "name", path), f"{path}.name")}
        code = self.integer(self.req(o, "type", path), f"{path}.type")
        if not 0 <= code <= 14:
            raise FormatError("Unsupported", f"{path}.type", f"unknown attribute type {code}")
        a["type"], a["ref"] = code, self.opt_str(o, "ref", path)
        if a["ref"]:
            return a
        if code == 0:
            raise FormatError("InvalidModel", f"{path}.type", "attribute type 0")
        value = self.req(o, "value", path)
        vp = f"{path}.value"

        def each(fn):
            return [fn(x, f"{vp}[{i}]") for i, x in enumerate(self.arr(value, vp))]
        a["value"] = {
            1: lambda: self.float_bits(value, vp), 2: lambda: self.integer(value, vp),
            3: lambda: self.b64(value, vp), 4: lambda: self.tensor(value, vp),
            5: lambda: self.graph(value, vp, depth + 1), 6: lambda: each(self.float_bits),
            7: lambda: each(self.integer), 8: lambda: each(self.b64), 9: lambda: each(self.tensor),
            10: lambda: each(lambda x, p: self.graph(x, p, depth + 1)), 11: lambda: self.sparse(value, vp),
            12: lambda: each(self.sparse), 13: lambda: self.type(value, vp, depth + 1),
            14: lambda: each(lambda x, p: self.type(x, p, depth + 1)),
        }[code]()
        return a

    def node(self, v, path, depth):
        o = self.obj(v, path)
        return {"name": self.opt_str(o, "name", path),
                "op": self.string(self.req(o, "op", path), f"{path}.op"),
                "domain": self.opt_str(o, "domain", path),
                "inputs": [self.string(x, f"{path}.inputs[{i}]") for i, x in self.items(o, "inputs", path)],
                "outputs": [self.string(x, f"{path}.outputs[{i}]") for i, x in self.items(o, "outputs", path)],
                "attributes": [self.attribute(x, f"{path}.attributes[{i}]", depth)
                               for i, x in self.items(o, "attributes", path)]}

    def typed_names(self, o, key, path, depth):
        out = []
        for i, x in self.items(o, key, path):
            p = f"{path}.{key}[{i}]"
            x = self.obj(x, p)
            out.append({"name": self.string(self.req(x, "name", p), f"{p}.name"),
                        "type": self.type(x["type"], f"{p}.type", depth + 1) if "type" in x else None})
        return out

    def graph(self, v, path, depth):
        o = self.obj(v, path)
        if depth > MAX_NESTING:
            raise FormatError("Unsupported", path, "nesting over 64")
        return {"name": self.opt_str(o, "name", path),
                "inputs": self.typed_names(o, "inputs", path, depth),
                "outputs": self.typed_names(o, "outputs", path, depth),
                "value_info": self.typed_names(o, "value_info", path, depth),
                "initializers": [self.tensor(x, f"{path}.initializers[{i}]")
                                 for i, x in self.items(o, "initializers", path)],
                "sparse_initializers": [self.sparse(x, f"{path}.sparse_initializers[{i}]")
                                        for i, x in self.items(o, "sparse_initializers", path)],
                "nodes": [self.node(x, f"{path}.nodes[{i}]", depth) for i, x in self.items(o, "nodes", path)]}

    def model(self, m, header_version):
        path = "manifest"
        m = self.obj(m, path)
        if self.string(self.req(m, "format", path), "manifest.format") != "onemodel":
            raise FormatError("Malformed", "manifest.format", "not onemodel")
        if self.integer(self.req(m, "version", path), "manifest.version") != header_version:
            raise FormatError("Malformed", "manifest.version", "differs from the header")
        ir_version = self.integer(self.req(m, "ir_version", path), "manifest.ir_version")
        if ir_version < 3:
            raise FormatError("InvalidModel", "manifest.ir_version", "below 3")
        opsets = []
        for i, x in self.items(m, "opsets", path):
            p = f"manifest.opsets[{i}]"
            x = self.obj(x, p)
            opsets.append((self.opt_str(x, "domain", p), self.integer(self.req(x, "version", p), f"{p}.version")))
        functions = []
        for i, f in self.items(m, "functions", path):
            p = f"manifest.functions[{i}]"
            f = self.obj(f, p)
            functions.append({"name": self.opt_str(f, "name", p),
                              "attribute_defaults": [self.attribute(x, f"{p}.attribute_defaults[{k}]", 0)
                                                     for k, x in self.items(f, "attribute_defaults", p)],
                              "nodes": [self.node(x, f"{p}.nodes[{k}]", 0) for k, x in self.items(f, "nodes", p)]})
        return {"ir_version": ir_version, "opsets": opsets,
                "producer_name": self.opt_str(m, "producer_name", path),
                "graph": self.graph(self.req(m, "graph", path), "manifest.graph", 1),
                "functions": functions}


def read_bytes(buf):
    """Reads a whole file given as bytes (or a memory map). Returns the model as nested dicts."""
    n = len(buf)
    if n < 8 or bytes(buf[:8]) != MAGIC:
        raise FormatError("Malformed", "header.magic", "bad magic")
    if n < 64:
        raise FormatError("Malformed", "header.file_length", "truncated header")
    (version, flags, manifest_offset, manifest_length, data_offset, data_length, file_length,
     reserved) = struct.unpack_from("<IIQQQQQQ", buf, 8)
    if version != 1:
        raise FormatError("Unsupported", "header.version", f"version {version}")
    if flags != 0:
        raise FormatError("Unsupported", "header.flags", "nonzero flags")
    for name, value in (("manifest_offset", manifest_offset), ("manifest_length", manifest_length),
                        ("data_offset", data_offset), ("data_length", data_length),
                        ("file_length", file_length), ("reserved", reserved)):
        if value > MAX_U64:
            raise FormatError("Malformed", f"header.{name}", "above 2^63-1")
    if file_length != n:
        raise FormatError("Malformed", "header.file_length", "truncated or extended file")
    if reserved != 0:
        raise FormatError("Malformed", "header.reserved", "nonzero")
    if manifest_offset != 64:
        raise FormatError("Malformed", "header.manifest_offset", "not 64")
    if manifest_length > n - 64:
        raise FormatError("Malformed", "header.manifest_length", "past the end")
    if manifest_length > MAX_MANIFEST:
        raise FormatError("Unsupported", "header.manifest_length", "manifest over 512 MiB")
    if data_offset % 64 != 0 or data_offset < 64 + manifest_length or data_offset > n:
        raise FormatError("Malformed", "header.data_offset", "bad data_offset")
    if data_length != n - data_offset:
        raise FormatError("Malformed", "header.data_length", "not file length - data_offset")
    text = bytes(buf[64:64 + manifest_length])
    if text.startswith(b"\xef\xbb\xbf"):
        raise FormatError("Malformed", "manifest", "byte-order mark")
    try:
        manifest = json.loads(text.decode("utf-8", errors="strict"), parse_float=_Decimal,
                              parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise FormatError("Malformed", "manifest", f"invalid JSON: {e}")
    data = np.frombuffer(buf, dtype=np.uint8, count=data_length, offset=data_offset)
    return Reader(data).model(manifest, version)


def read_file(path):
    arr = np.memmap(path, dtype=np.uint8, mode="r") if _size(path) > 0 else b""
    return read_bytes(arr)


def _size(path):
    import os
    return os.path.getsize(path)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        model = read_file(argv[1])
    except FormatError as e:
        print(e, file=sys.stderr)
        return 1
    for t in model["graph"]["initializers"]:
        size = len(t["strings"]) if t["dtype"] == STRING else len(t["bytes"])
        print(f"{t['name']}\tdtype={t['dtype']}\tdims={t['dims']}\t{size}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
