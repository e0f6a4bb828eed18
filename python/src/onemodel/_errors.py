"""The library's errors as Python exceptions (docs/api.md "Python", error kinds).

Every error the library raises carries a kind (spec/errors.md): the model file's
(include/onemodel/error.hpp), the session's (session_error.hpp), the tensor layer's
(tensor_error.hpp) and the CTC decoder's (ctc.hpp). Each kind is one subclass of
:class:`Error` named after it; ``str(e)`` is ``"<Kind>: <message>"``, the text the C++ library
and the C API give. ``InvalidModel`` and ``Unsupported`` are kinds of both model files and
sessions: one class each, and ``e.source`` says which (``"model"`` or ``"session"``).
"""

from __future__ import annotations


class Error(Exception):
    """Base of every error the library raises.

    Attributes: ``kind`` (the class name), ``source`` ("model", "session", "tensor", "ctc" or
    "python"), ``message`` (the text after ``"<Kind>: "``), ``node_name`` and ``operators``
    (session errors: the node where it happened, the operators involved; empty otherwise).
    """

    kind = "Error"

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.source = "python"
        self.message = text.split(": ", 1)[1] if text.startswith(self.kind + ": ") else text
        self.node_name = ""
        self.operators: list[str] = []


class Malformed(Error):
    """Bytes that are not a well-formed model file (protobuf, header, JSON). Raised by: model."""

    kind = "Malformed"


class InvalidModel(Error):
    """A model file or graph that is well formed but impossible (undefined names, bad lengths, malformed node attributes). Raised by: model, session."""

    kind = "InvalidModel"


class Unsupported(Error):
    """Something this library does not handle: a newer version, an unknown type, an attribute value. Raised by: model, session."""

    kind = "Unsupported"


class ExternalData(Error):
    """An external-data reference that is unsafe or does not fit its file. Raised by: model."""

    kind = "ExternalData"


class Io(Error):
    """A file that could not be read or written. Raised by: model."""

    kind = "Io"


class UnsupportedOperator(Error):
    """Operators with no kernel; every one is listed in ``operators``. Raised by: session."""

    kind = "UnsupportedOperator"


class ExactModeUnavailable(Error):
    """Exact mode asked for and some operators have no exact kernel (listed). Raised by: session."""

    kind = "ExactModeUnavailable"


class InvalidInput(Error):
    """A wrong input name, element type, rank or extent, or an input value a node refuses. Raised by: session."""

    kind = "InvalidInput"


class Disposed(Error):
    """The session was closed. Raised by: session."""

    kind = "Disposed"


class ResourceExhausted(Error):
    """The run would pass the session's memory limit. Raised by: session."""

    kind = "ResourceExhausted"


class Cancelled(Error):
    """The run passed its timeout. Raised by: session."""

    kind = "Cancelled"


class TensorShape(Error):
    """A rank, extent, element-count or byte-size limit (rank above 8, ...). Raised by: tensor."""

    kind = "TensorShape"


class TensorView(Error):
    """A view whose offsets leave its buffer (internal; not reachable from Python). Raised by: tensor."""

    kind = "TensorView"


class TensorIndex(Error):
    """An element index outside the shape (internal). Raised by: tensor."""

    kind = "TensorIndex"


class TensorType(Error):
    """An element type the library does not store (complex, strings, objects). Raised by: tensor, python."""

    kind = "TensorType"


class StaleTensor(Error):
    """A buffer returned since the tensor was made (internal). Raised by: tensor."""

    kind = "StaleTensor"


class BufferPool(Error):
    """A request the buffer pool cannot serve (internal). Raised by: tensor."""

    kind = "BufferPool"


class BufferOverrun(Error):
    """Checked builds: a write past a buffer's end (internal). Raised by: tensor."""

    kind = "BufferOverrun"


class InvalidArgument(Error):
    """An argument out of range: an option value, a shape, blank index, beam width. Raised by: ctc, python."""

    kind = "InvalidArgument"


class InvalidScores(Error):
    """A score the CTC decoder refuses (NaN, +inf, a logit row without a finite maximum). Raised by: ctc."""

    kind = "InvalidScores"


class TooLarge(Error):
    """The beam search could create more prefixes than its limit (2^24). Raised by: ctc."""

    kind = "TooLarge"


_CLASSES: dict = {cls.kind: cls for cls in Error.__subclasses__()}
KINDS = tuple(_CLASSES)


def error_class(kind: str) -> type:
    """The class of a kind; a kind this package does not know (a newer library) gives Error."""
    return _CLASSES.get(kind, Error)


def invalid_argument(message: str) -> Error:
    """An InvalidArgument for a bad argument of the Python API itself."""
    return InvalidArgument("InvalidArgument: " + message)


__all__ = ["Error", "KINDS", "error_class", *KINDS]
