"""A few lines of protobuf to write small ONNX models for the tests (the fresh test venv has numpy
and pytest only, not the onnx package). Field numbers from onnx/onnx.proto."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple, Union


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n)


def _bytes(field: int, data: Union[bytes, str]) -> bytes:
    if isinstance(data, str):
        data = data.encode()
    return _varint((field << 3) | 2) + _varint(len(data)) + data


Dim = Union[int, str, None]  # None: a dimension with neither a value nor a name


def value_info(name: str, elem_type: int, shape: Optional[Sequence[Dim]]) -> bytes:
    tensor = _int(1, elem_type)
    if shape is not None:
        dims = b"".join(_bytes(1, b"" if d is None else _int(1, d) if isinstance(d, int) else _bytes(2, d))
                        for d in shape)
        tensor += _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor))


def node(op: str, inputs: Iterable[str], outputs: Iterable[str], name: str = "", domain: str = "") -> bytes:
    out = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    out += _bytes(3, name or op.lower()) + _bytes(4, op)
    if domain:
        out += _bytes(7, domain)
    return out


def initializer(name: str, elem_type: int, dims: Sequence[int], raw: bytes = b"",
                external: Optional[List[Tuple[str, str]]] = None) -> bytes:
    out = b"".join(_int(1, d) for d in dims) + _int(2, elem_type) + _bytes(8, name)
    if external is not None:
        out += b"".join(_bytes(13, _bytes(1, k) + _bytes(2, v)) for k, v in external) + _int(14, 1)
    else:
        out += _bytes(9, raw)
    return out


def model(nodes: Sequence[bytes], inputs: Sequence[bytes], outputs: Sequence[bytes],
          initializers: Sequence[bytes] = (), opset: int = 17, ir_version: Optional[int] = 8) -> bytes:
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, "g")
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs)
    out = b""
    if ir_version is not None:
        out += _int(1, ir_version)
    out += _bytes(2, "onemodel-python-tests") + _bytes(7, graph) + _bytes(8, _bytes(1, "") + _int(2, opset))
    return out


def unary(op: str, elem_type: int, out_type: Optional[int] = None, shape: Sequence[Dim] = ("n",),
          **kwargs) -> bytes:
    """y = op(x), x and y of the given types."""
    return model([node(op, ["x"], ["y"])], [value_info("x", elem_type, shape)],
                 [value_info("y", elem_type if out_type is None else out_type, shape)], **kwargs)
