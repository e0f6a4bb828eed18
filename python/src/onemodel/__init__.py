"""OneModel: run ONNX models on the CPU, in a fast mode or an exact (bit-identical) mode.

    import onemodel
    session = onemodel.Session("model.onnx", mode="exact", threads=2)
    outputs = session.run({"x": x})          # {output name: numpy.ndarray}

See docs/api.md, section "Python".
"""

from __future__ import annotations

from . import ctc
from ._errors import KINDS, Error, error_class
from ._errors import *  # noqa: F401,F403  (Error and one class per error kind)
from ._errors import _CLASSES as _error_classes
from ._session import Session, ValueInfo, input_counters

__version__ = "0.2.0"

__all__ = ["Session", "ValueInfo", "Error", "KINDS", "error_class", "ctc", "input_counters", "__version__",
           *sorted(_error_classes)]
