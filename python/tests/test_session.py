"""onemodel.Session on the bundled sample models (models/samples, made by
tools/make_sample_models.py from the getting-started page). Expected values come from ONNX Runtime
1.31.1 (the classifier's probabilities, as in tests/c/c_api_test.c and tools/ci/check_install.sh)
and, for the scorer, from its definition score = features x W + bias, best = max(score) worked out
with ONNX Runtime 1.31.1 too."""

import numpy as np
import pytest

import onemodel
from conftest import SAMPLES

import onnx_writer as ow

X = np.array([[5.1, 3.5, 1.4, 0.2]], dtype=np.float32)
PROBS = np.array([0.232286, 0.28132826, 0.4863858], dtype=np.float32)
FEATURES = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
BIAS = np.array([[0.5, 1.5]], dtype=np.float32)
SCORE = np.array([[4.5, 6.5], [10.5, 12.5]], dtype=np.float32)
BEST = np.array([6.5, 12.5], dtype=np.float32)

MODES = [("fast", "optimized"), ("exact", "optimized"), ("fast", "reference"), ("exact", "reference")]


@pytest.mark.parametrize("mode,engine", MODES)
def test_classifier_gives_onnx_runtimes_probabilities(mode, engine):
    session = onemodel.Session(SAMPLES / "classifier.onnx", mode=mode, engine=engine, threads=1)
    out = session.run({"x": X})
    assert list(out) == ["probs"]
    probs = out["probs"]
    assert probs.dtype == np.float32 and probs.shape == (1, 3)
    np.testing.assert_allclose(probs[0], PROBS, atol=1e-6)
    # Two rows at once: the declared [batch, 4] takes any batch.
    two = session.run({"x": np.concatenate([X, X])})["probs"]
    np.testing.assert_allclose(two, np.stack([PROBS, PROBS]), atol=1e-6)


@pytest.mark.parametrize("mode,engine", MODES)
def test_scorer_named_inputs_in_any_order(mode, engine):
    session = onemodel.Session(SAMPLES / "scorer.onnx", mode=mode, engine=engine)
    out = session.run({"bias": BIAS, "features": FEATURES})
    assert list(out) == ["score", "best"]
    np.testing.assert_array_equal(out["score"], SCORE)
    np.testing.assert_array_equal(out["best"], BEST)
    only = session.run({"features": FEATURES, "bias": BIAS}, outputs=["best"])
    assert list(only) == ["best"]
    np.testing.assert_array_equal(only["best"], BEST)


def test_metadata():
    session = onemodel.Session(str(SAMPLES / "scorer.onnx"))
    assert [(i.name, i.dtype, i.shape, i.element_type, i.kind) for i in session.inputs] == [
        ("features", np.dtype(np.float32), ("batch", 3), "float", "tensor"),
        ("bias", np.dtype(np.float32), (1, 2), "float", "tensor")]
    assert [(o.name, o.dtype, o.shape) for o in session.outputs] == [
        ("score", np.dtype(np.float32), ("batch", 2)), ("best", np.dtype(np.float32), ("batch",))]
    assert isinstance(session.kernel_path, str) and session.kernel_path
    ref = onemodel.Session(SAMPLES / "scorer.onnx", engine="reference")
    assert ref.kernel_path == "Reference"
    # An unknown extent is None, an undeclared rank a None shape.
    m = ow.model([ow.node("Identity", ["x"], ["y"])], [ow.value_info("x", 1, [None])],
                 [ow.value_info("y", 1, None)])
    s = onemodel.Session.from_bytes(m, name="unknown-dims")
    assert s.inputs[0].shape == (None,)
    assert s.outputs[0].shape is None


def test_lists_are_made_arrays_of_the_declared_type():
    session = onemodel.Session(SAMPLES / "classifier.onnx")
    probs = session.run({"x": [[5.1, 3.5, 1.4, 0.2]]})["probs"]
    np.testing.assert_allclose(probs[0], PROBS, atol=1e-6)


# Every element type the library stores goes in and out with its NumPy type (Identity returns
# its input: the values and the type must survive both ways).
DTYPES = [(np.float32, 1), (np.uint8, 2), (np.int8, 3), (np.uint16, 4), (np.int16, 5), (np.int32, 6),
          (np.int64, 7), (np.bool_, 9), (np.float16, 10), (np.float64, 11), (np.uint32, 12), (np.uint64, 13)]


@pytest.mark.parametrize("np_type,code", DTYPES)
def test_every_element_type_round_trips(np_type, code):
    session = onemodel.Session.from_bytes(ow.unary("Identity", code), name=f"identity-{code}")
    assert session.inputs[0].dtype == np.dtype(np_type)
    rng = np.random.default_rng(code)
    x = (rng.integers(0, 2, 7) if np_type is np.bool_ else rng.integers(-100, 100, 7)).astype(np_type)
    y = session.run({"x": x})["y"]
    assert y.dtype == np.dtype(np_type)
    np.testing.assert_array_equal(y, x)
    # The output is the library's memory, never the caller's array.
    assert not np.shares_memory(x, y)


def test_bfloat16_travels_as_uint16_bits():
    session = onemodel.Session.from_bytes(ow.unary("Identity", 16), name="identity-bf16")
    assert session.inputs[0].element_type == "bfloat16" and session.inputs[0].dtype == np.dtype(np.uint16)
    bits = np.array([0x3F80, 0xC000, 0x7F80], dtype=np.uint16)  # 1.0, -2.0, +inf
    y = session.run({"x": bits})["y"]
    assert y.dtype == np.uint16
    np.testing.assert_array_equal(y, bits)


def test_computation_on_other_types():
    # Add on int64 and on float64: results worked by NumPy.
    def add(code):
        return ow.model([ow.node("Add", ["a", "b"], ["c"])],
                        [ow.value_info("a", code, ["n"]), ow.value_info("b", code, ["n"])],
                        [ow.value_info("c", code, ["n"])])

    s = onemodel.Session.from_bytes(add(7))
    a, b = np.arange(5, dtype=np.int64) * 2**40, np.arange(5, dtype=np.int64)
    np.testing.assert_array_equal(s.run({"a": a, "b": b})["c"], a + b)
    s = onemodel.Session.from_bytes(add(11))
    a, b = np.linspace(-1, 1, 5), np.linspace(3, 4, 5)
    np.testing.assert_array_equal(s.run({"a": a, "b": b})["c"], a + b)


def test_an_output_never_aliases_an_input():
    # A graph whose output is its input, and Reshape (a view in the engine): the arrays returned
    # are the library's own memory either way.
    x = np.arange(4, dtype=np.float32)
    passthrough = ow.model([], [ow.value_info("x", 1, ["n"])], [ow.value_info("x", 1, ["n"])])
    reshape = ow.model([ow.node("Reshape", ["x", "s"], ["y"])], [ow.value_info("x", 1, [4]), ow.value_info("s", 7, [1])],
                       [ow.value_info("y", 1, [4])])
    for engine in ("optimized", "reference"):
        y = onemodel.Session.from_bytes(passthrough, engine=engine).run({"x": x})["x"]
        np.testing.assert_array_equal(y, x)
        assert not np.shares_memory(x, y)
        y = onemodel.Session.from_bytes(reshape, engine=engine).run({"x": x, "s": np.array([4])})["y"]
        np.testing.assert_array_equal(y, x)
        assert not np.shares_memory(x, y)


def test_outputs_outlive_later_runs():
    session = onemodel.Session(SAMPLES / "scorer.onnx")
    first = session.run({"features": FEATURES, "bias": BIAS})
    session.run({"features": FEATURES * 10, "bias": BIAS * 10})
    np.testing.assert_array_equal(first["score"], SCORE)
    np.testing.assert_array_equal(first["best"], BEST)
    first["score"][0, 0] = 99  # the caller's to change
    again = session.run({"features": FEATURES, "bias": BIAS})
    np.testing.assert_array_equal(again["score"], SCORE)


def test_context_manager_closes():
    with onemodel.Session(SAMPLES / "classifier.onnx") as s:
        s.run({"x": X})
    with pytest.raises(onemodel.Disposed):
        s.run({"x": X})


def test_timeout_zero_cancels():
    session = onemodel.Session(SAMPLES / "classifier.onnx")
    with pytest.raises(onemodel.Cancelled):
        session.run({"x": X}, timeout=0)
    np.testing.assert_allclose(session.run({"x": X}, timeout=600)["probs"][0], PROBS, atol=1e-6)


def test_random_seed_keys_unseeded_draws():
    # spec/ops/random.md section 2: an unseeded RandomUniformLike draws from the run's random_seed;
    # the same seed gives the same values in both engines, another seed other values.
    m = ow.model([ow.node("RandomUniformLike", ["x"], ["y"])], [ow.value_info("x", 1, [256])],
                 [ow.value_info("y", 1, [256])])
    x = np.zeros(256, dtype=np.float32)
    runs = {}
    for engine in ("optimized", "reference"):
        session = onemodel.Session.from_bytes(m, name="random-" + engine, engine=engine)
        for seed in (1, 2, 2**64 - 1):
            runs[(engine, seed)] = session.run({"x": x}, random_seed=seed)["y"]
    for seed in (1, 2, 2**64 - 1):
        np.testing.assert_array_equal(runs[("optimized", seed)], runs[("reference", seed)])
        assert runs[("optimized", seed)].min() >= 0.0 and runs[("optimized", seed)].max() < 1.0
    assert not np.array_equal(runs[("optimized", 1)], runs[("optimized", 2)])
    session = onemodel.Session.from_bytes(m, name="random-default")
    np.testing.assert_array_equal(session.run({"x": x})["y"], session.run({"x": x}, random_seed=0)["y"])
    for bad in (-1, 2**64, 1.5, True):
        with pytest.raises(onemodel.InvalidArgument):
            session.run({"x": x}, random_seed=bad)
