"""onemodel.Session: load a model once, run it many times on NumPy arrays (docs/api.md "Python")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._errors import error_class, invalid_argument

# ONNX TensorProto.DataType codes of the element types the library stores
# (include/onemodel/dtype.hpp) and the NumPy type of each. bfloat16 has no NumPy type: its raw
# bits travel as uint16, in and out. Nor have the 8-bit floats (codes 17-20 and 24): their raw
# bits travel as uint8, in and out (spec/tensors.md section 2.1 says how to decode them).
_NUMPY_OF_CODE = {
    1: np.dtype(np.float32), 2: np.dtype(np.uint8), 3: np.dtype(np.int8), 4: np.dtype(np.uint16),
    5: np.dtype(np.int16), 6: np.dtype(np.int32), 7: np.dtype(np.int64), 9: np.dtype(np.bool_),
    10: np.dtype(np.float16), 11: np.dtype(np.float64), 12: np.dtype(np.uint32), 13: np.dtype(np.uint64),
    16: np.dtype(np.uint16),
    17: np.dtype(np.uint8), 18: np.dtype(np.uint8), 19: np.dtype(np.uint8), 20: np.dtype(np.uint8),
    24: np.dtype(np.uint8),
    # 4- and 2-bit types (spec/tensors.md section 2.2): NumPy has none; outputs come as one element
    # per byte, int8 for int4/int2 (sign-extended), uint8 for uint4/uint2 and float4e2m1 (its code).
    # Inputs of these types are refused (an int8 array could hold values outside the type).
    21: np.dtype(np.uint8), 22: np.dtype(np.int8), 23: np.dtype(np.uint8), 25: np.dtype(np.uint8),
    26: np.dtype(np.int8),
}
_FLOAT8 = (17, 18, 19, 20, 24)
_SUBBYTE = {21, 22, 23, 25, 26}
# Keyed by (kind, size): np.dtype("q") and np.dtype("l") are both int64 on Linux but are not one object.
_CODE_OF_NUMPY = {(dt.kind, dt.itemsize): code for code, dt in _NUMPY_OF_CODE.items()
                  if code != 16 and code not in _FLOAT8 and code not in _SUBBYTE}
_BFLOAT16 = 16
_ONNX_NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
               9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64",
               15: "complex128", 16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
               20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2",
               26: "int2"}

_MODES = {"fast": 0, "exact": 1}
_ENGINES = {"optimized": 0, "reference": 1}
_WEIGHTS = {"original": 0, "float16": 1, "bfloat16": 2}
_OPTIMIZATIONS = {"none": 0, "basic": 1, "all": 2}

Dim = Union[int, str, None]


@dataclass(frozen=True)
class ValueInfo:
    """A model input or output as the model declares it.

    ``shape`` holds an int for a fixed extent, the symbolic name (``"batch"``) for a named one and
    None for an unknown one; it is None when the rank is not declared. ``dtype`` is the NumPy type
    (None when undeclared or not stored; bfloat16 is ``uint16``, its bits); ``element_type`` the
    ONNX name ("float", "int64", "bfloat16", ...); ``kind`` "tensor", "sequence", "optional" or
    "other" (the Python package runs models whose inputs and outputs are tensors).
    """

    name: str
    dtype: Optional[np.dtype]
    shape: Optional[Tuple[Dim, ...]]
    element_type: str
    kind: str


def _infos(raw) -> list:
    out = []
    for name, kind, code, dims in raw:
        out.append(ValueInfo(name, _NUMPY_OF_CODE.get(code), dims,
                             _ONNX_NAMES.get(code, "undefined" if code == 0 else f"type{code}"), kind))
    return out


def _choice(what: str, value: str, table: Mapping[str, int]) -> int:
    if not isinstance(value, str) or value not in table:
        raise invalid_argument(f"{what} takes {' or '.join(repr(k) for k in table)}, not {value!r}")
    return table[value]


class Session:
    """A model loaded once and run many times; thread-safe.

    ``Session(path, mode="fast", engine="optimized", threads=0, weights="original",
    optimization="all", memory_limit=None, max_cached_plans=16)``:

    - ``mode``: "fast" (the default; may use FMA, deterministic for any thread count on one
      machine) or "exact" (the same float32 bits on every CPU, instruction set and thread count).
    - ``engine``: "optimized" or "reference" (the slow, literal definition of every operator).
    - ``threads``: threads one run may use; 0 is one per logical core (at most 256).
    - ``weights``: "original", "float16" or "bfloat16": how float32 weights are stored.
    - ``optimization``: "none", "basic" or "all" graph passes.
    - ``memory_limit``: bytes one run may hold (None: the library's 8 GiB).
    - ``max_cached_plans``: plans kept for different input shapes.

    Models with external data read it from beside the file (the library's safe external-data
    rules); a OneModel-format file maps its weights.
    """

    def __init__(self, path: Union[str, os.PathLike], mode: str = "fast", engine: str = "optimized",
                 threads: int = 0, weights: str = "original", optimization: str = "all",
                 memory_limit: Optional[int] = None, max_cached_plans: int = 16, *, _model_bytes=None,
                 _name: str = "") -> None:
        args = self._options(mode, engine, threads, weights, optimization, memory_limit, max_cached_plans)
        if _model_bytes is not None:
            self._impl = _core.Session.load_bytes(_model_bytes, _name, *args)
        else:
            self._impl = _core.Session.load(os.fspath(path), *args)
        self.mode, self.engine, self.threads = mode, engine, threads
        self._inputs = _infos(self._impl.inputs())
        self._outputs = _infos(self._impl.outputs())
        self._output_names = [o.name for o in self._outputs]
        self._bfloat16_inputs = {i.name for i in self._inputs if i.element_type == "bfloat16"}
        # 8-bit float inputs: a uint8 array is taken as their bits.
        self._float8_inputs = {i.name: code for i in self._inputs for code in _FLOAT8
                               if i.element_type == _ONNX_NAMES[code]}
        self._subbyte_inputs = {i.name: i.element_type for i in self._inputs
                                if i.element_type in ("uint4", "int4", "float4e2m1", "uint2", "int2")}

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "model", **options) -> "Session":
        """A session from the bytes of an ONNX or OneModel file (``name`` names them in errors)."""
        return cls(name, _model_bytes=bytes(data), _name=name, **options)

    @staticmethod
    def _options(mode, engine, threads, weights, optimization, memory_limit, max_cached_plans):
        if not isinstance(threads, int) or isinstance(threads, bool) or not 0 <= threads <= 256:
            raise invalid_argument(f"threads takes 0 to 256, not {threads!r}")
        if memory_limit is not None and (not isinstance(memory_limit, int) or memory_limit <= 0):
            raise invalid_argument(f"memory_limit takes a positive byte count or None, not {memory_limit!r}")
        if not isinstance(max_cached_plans, int) or max_cached_plans < 1:
            raise invalid_argument(f"max_cached_plans takes a positive count, not {max_cached_plans!r}")
        return (_choice("mode", mode, _MODES), _choice("engine", engine, _ENGINES), threads,
                _choice("weights", weights, _WEIGHTS), _choice("optimization", optimization, _OPTIMIZATIONS),
                memory_limit or 0, max_cached_plans)

    @property
    def inputs(self) -> list:
        """The inputs a caller gives, as :class:`ValueInfo` (weights with defaults left out)."""
        return list(self._inputs)

    @property
    def outputs(self) -> list:
        return list(self._outputs)

    @property
    def kernel_path(self) -> str:
        """The kernels chosen from the hardware ("AVX-512", "AVX2", ...; "Reference" for the reference engine)."""
        return self._impl.kernel_path()

    def run(self, feeds: Mapping[str, object], outputs: Optional[Sequence[str]] = None,
            timeout: Optional[float] = None, random_seed: int = 0) -> dict:
        """Runs the model: ``{input name: array}`` in, ``{output name: ndarray}`` out.

        Every model input is given once. An ndarray that is C-contiguous, in native byte order and
        aligned to its element size is read where it lies, not copied (the no-copy rule); any
        other array is copied once. Arrays are not converted: a wrong element type or shape is an
        ``InvalidInput`` error. Values that are not ndarrays (lists, scalars) are made arrays of
        the declared type. ``outputs`` picks outputs by name (default: all, in model order).
        The GIL is released while the model runs; concurrent runs on one session are safe.
        ``random_seed`` (an integer in [0, 2**64 - 1]) keys the draws of random operators without a
        ``seed`` attribute (spec/ops/random.md section 2): the same value gives the same draws.
        """
        if not isinstance(feeds, Mapping):
            raise invalid_argument("run takes a mapping of input names to arrays")
        declared = {i.name: i for i in self._inputs}
        prepared = []
        for name, value in feeds.items():
            if not isinstance(name, str):
                raise invalid_argument(f"input names are strings, not {name!r}")
            prepared.append(self._feed(name, value, declared.get(name)))
        names = self._output_names if outputs is None else list(outputs)
        if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)
                                    or not timeout >= 0):
            raise invalid_argument(f"timeout takes seconds >= 0 or None, not {timeout!r}")
        if isinstance(random_seed, bool) or not isinstance(random_seed, int) or not 0 <= random_seed < 2**64:
            raise invalid_argument(f"random_seed takes an integer in [0, 2**64 - 1], not {random_seed!r}")
        results = self._impl.run(prepared, names, -1.0 if timeout is None else float(timeout), random_seed)
        return dict(zip(names, results))

    def _feed(self, name: str, value, info: Optional[ValueInfo]):
        if name in self._subbyte_inputs:
            raise error_class("TensorType")(
                f"TensorType: input '{name}' has element type {self._subbyte_inputs[name]}, which NumPy cannot hold; "
                "the Python API does not feed 4- and 2-bit inputs (their outputs come as int8/uint8 arrays)")
        if not isinstance(value, np.ndarray):
            dtype = info.dtype if info is not None and info.dtype is not None else None
            value = np.asarray(value, dtype=dtype)
        array = value
        copied = False
        if not (array.flags.c_contiguous and array.dtype.isnative):
            array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
            copied = True
        code = _CODE_OF_NUMPY.get((array.dtype.kind, array.dtype.itemsize))
        if array.dtype.name == "bfloat16" and array.dtype.itemsize == 2:  # ml_dtypes' bfloat16
            code = _BFLOAT16
        elif code == 4 and name in self._bfloat16_inputs:
            code = _BFLOAT16  # uint16 given for a bfloat16 input: its bits (as `onemodel run` reads .npy)
        elif code == 2 and name in self._float8_inputs:
            code = self._float8_inputs[name]  # uint8 given for an 8-bit float input: its bits
        if code is None:
            raise error_class("TensorType")(
                f"TensorType: input '{name}': NumPy type {array.dtype} is not an element type the library stores")
        address = array.__array_interface__["data"][0]
        return (name, code, tuple(int(d) for d in array.shape), address, array.nbytes, array, copied)

    def close(self) -> None:
        """Later runs raise Disposed; runs in progress finish."""
        self._impl.dispose()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        ins = ", ".join(i.name for i in self._inputs)
        outs = ", ".join(o.name for o in self._outputs)
        return f"<onemodel.Session mode={self.mode} engine={self.engine} inputs=[{ins}] outputs=[{outs}]>"


def input_counters() -> Tuple[int, int]:
    """(inputs read in place, inputs copied) since the module was loaded: the no-copy rule's
    evidence for tests and for callers checking their own arrays."""
    return tuple(_core.input_counters())
