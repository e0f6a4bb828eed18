"""Every error kind the Python API can meet, each raised from a real bad input, as the class of
its kind with the text "<Kind>: <message>" (spec/errors.md; the kinds of include/onemodel/error.hpp,
session_error.hpp, tensor_error.hpp and ctc.hpp).

Not reachable from Python (the package builds its tensors itself and never exposes views, pools
or buffers): TensorView, TensorIndex, StaleTensor, BufferPool and BufferOverrun; their classes
exist and are checked for the name rule below."""

import numpy as np
import pytest

import onemodel
from conftest import SAMPLES

import onnx_writer as ow

X = np.array([[5.1, 3.5, 1.4, 0.2]], dtype=np.float32)


def expect(kind, source, fn, *args, contains="", **kwargs):
    cls = getattr(onemodel, kind)
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    e = info.value
    assert type(e) is cls and isinstance(e, onemodel.Error)
    assert e.kind == kind
    assert e.source == source, str(e)
    assert str(e).startswith(kind + ": "), str(e)
    assert contains in str(e), str(e)
    return e


def classifier(**options):
    return onemodel.Session(SAMPLES / "classifier.onnx", **options)


def test_every_kind_has_a_class_named_after_it():
    for kind in onemodel.KINDS:
        cls = getattr(onemodel, kind)
        assert issubclass(cls, onemodel.Error) and cls.__name__ == kind and cls.kind == kind
        assert onemodel.error_class(kind) is cls
    assert len(set(onemodel.KINDS)) == 21


# ---- model files ----

def test_io_missing_file(tmp_path):
    expect("Io", "model", onemodel.Session, tmp_path / "no-such-model.onnx")


def test_malformed_bytes():
    # A .npy file is not a model (the C API test uses the same file).
    expect("Malformed", "model", onemodel.Session, SAMPLES / "classifier_x.npy")
    expect("Malformed", "model", onemodel.Session.from_bytes, b"\xff\xff\xff\xff garbage", name="garbage")


def test_invalid_model_file_without_ir_version():
    m = ow.unary("Identity", 1, ir_version=None)
    expect("InvalidModel", "model", onemodel.Session.from_bytes, m, contains="ir_version")


def test_unsupported_tensor_type_in_file():
    init = ow.initializer("w", 99, [1], raw=b"\0")
    m = ow.model([ow.node("Identity", ["x"], ["y"])], [ow.value_info("x", 1, [1])], [ow.value_info("y", 1, [1])],
                 initializers=[init])
    expect("Unsupported", "model", onemodel.Session.from_bytes, m, contains="data_type 99")


def test_external_data_outside_the_model_folder(tmp_path):
    init = ow.initializer("w", 1, [1], external=[("location", "../../etc/passwd")])
    m = ow.model([ow.node("Add", ["x", "w"], ["y"])], [ow.value_info("x", 1, [1])], [ow.value_info("y", 1, [1])],
                 initializers=[init])
    path = tmp_path / "ext.onnx"
    path.write_bytes(m)
    expect("ExternalData", "model", onemodel.Session, path)


# ---- sessions ----

def test_unsupported_operator_lists_it():
    m = ow.model([ow.node("NoSuchOp", ["x"], ["y"], name="n1")], [ow.value_info("x", 1, ["n"])],
                 [ow.value_info("y", 1, ["n"])])
    e = expect("UnsupportedOperator", "session", onemodel.Session.from_bytes, m, contains="NoSuchOp")
    assert any("NoSuchOp" in op for op in e.operators)


def test_exact_mode_runs_float64_tanh():
    # Float64 Tanh, refused in exact mode before issue 17's binary64 functions
    # (spec/exact-transcendentals.md section 17), runs there and gives fast mode's values.
    m = ow.unary("Tanh", 11)
    x = np.array([0.0, 1.0, -2.5], np.float64)
    fast = onemodel.Session.from_bytes(m, mode="fast").run({"x": x})["y"]
    exact = onemodel.Session.from_bytes(m, mode="exact").run({"x": x})["y"]
    np.testing.assert_array_equal(exact, fast)
    np.testing.assert_allclose(exact, np.tanh(x), rtol=1e-15)


def test_invalid_model_graph():
    # Add with one input: the file is well formed, the node is not.
    m = ow.model([ow.node("Add", ["x"], ["y"])], [ow.value_info("x", 1, ["n"])], [ow.value_info("y", 1, ["n"])])
    with pytest.raises(onemodel.InvalidModel) as info:
        onemodel.Session.from_bytes(m).run({"x": np.ones(2, np.float32)})
    assert str(info.value).startswith("InvalidModel: ")


def test_invalid_input_name_type_shape_and_missing():
    s = classifier()
    expect("InvalidInput", "session", s.run, {"y": X}, contains="y")
    expect("InvalidInput", "session", s.run, {"x": X.astype(np.float64)})
    expect("InvalidInput", "session", s.run, {"x": np.zeros((1, 5), np.float32)})
    expect("InvalidInput", "session", s.run, {})
    expect("InvalidInput", "session", s.run, {"x": X}, outputs=["nope"])


def test_disposed():
    s = classifier()
    s.close()
    expect("Disposed", "session", s.run, {"x": X})


def test_resource_exhausted():
    expect("ResourceExhausted", "session", classifier(memory_limit=1).run, {"x": X})


def test_cancelled():
    expect("Cancelled", "session", classifier().run, {"x": X}, timeout=0)


# ---- tensors ----

def test_tensor_shape_rank_above_eight():
    expect("TensorShape", "tensor", classifier().run, {"x": np.zeros((1,) * 9, np.float32)})


def test_tensor_type_not_stored():
    expect("TensorType", "python", classifier().run, {"x": X.astype(np.complex64)})


# ---- arguments and CTC ----

def test_invalid_argument_options():
    expect("InvalidArgument", "python", classifier, mode="slow", contains="mode")
    expect("InvalidArgument", "python", classifier, engine="fastest")
    expect("InvalidArgument", "python", classifier, threads=257)
    expect("InvalidArgument", "python", classifier, weights="int4")


def test_ctc_kinds():
    scores = np.zeros((3, 4), np.float32)
    expect("InvalidArgument", "ctc", onemodel.ctc.greedy_decode, scores, blank=4)
    expect("InvalidArgument", "ctc", onemodel.ctc.beam_search, scores, beam_width=0)
    bad = scores.copy()
    bad[1, 2] = np.nan
    # The beam search refuses NaN and +inf (spec/ctc.md section 3); greedy decoding never
    # chooses a NaN and takes it (section 2).
    expect("InvalidScores", "ctc", onemodel.ctc.beam_search, bad, contains="NaN score at step 1, class 2")
    # 4096 steps x width 4096 x (classes - 1) 1 + 1 passes the 2^24 prefix limit (spec/ctc.md).
    expect("TooLarge", "ctc", onemodel.ctc.beam_search, np.zeros((4096, 2), np.float32), beam_width=4096)
