"""The no-copy rule (docs/api.md "Python"): a C-contiguous, native-order array aligned to its
element size is read where it lies; any other array is copied once. onemodel.input_counters()
counts both in the extension, where the tensor is made."""

import ctypes
import mmap

import numpy as np
import pytest

import onemodel
from conftest import DATA, SAMPLES

PROBS = np.array([0.232286, 0.28132826, 0.4863858], dtype=np.float32)
X = np.array([[5.1, 3.5, 1.4, 0.2]], dtype=np.float32)


def counted(fn):
    before = onemodel.input_counters()
    result = fn()
    after = onemodel.input_counters()
    return result, (after[0] - before[0], after[1] - before[1])


def test_contiguous_input_is_borrowed():
    s = onemodel.Session(SAMPLES / "classifier.onnx")
    out, (borrowed, copied) = counted(lambda: s.run({"x": X}))
    assert (borrowed, copied) == (1, 0)
    np.testing.assert_allclose(out["probs"][0], PROBS, atol=1e-6)
    # At an address 64 does not divide (a 64-byte-aligned block plus 4): lent all the same.
    raw = np.zeros(64 + 32, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 64 + 4
    x = np.frombuffer(raw.data, dtype=np.float32, count=4, offset=start).reshape(1, 4)
    raw[start:start + 16] = X.view(np.uint8).ravel()
    assert x.__array_interface__["data"][0] % 64 == 4
    out, (borrowed, copied) = counted(lambda: s.run({"x": x}))
    assert (borrowed, copied) == (1, 0)
    np.testing.assert_allclose(out["probs"][0], PROBS, atol=1e-6)


def test_read_only_mapped_input_is_borrowed_and_never_written():
    # np.load's read-only memory map: a write by the library would be a segmentation fault.
    x = np.load(SAMPLES / "classifier_x.npy", mmap_mode="r")
    assert not x.flags.writeable
    s = onemodel.Session(SAMPLES / "classifier.onnx", mode="exact")
    out, (borrowed, copied) = counted(lambda: s.run({"x": x}))
    assert (borrowed, copied) == (1, 0)
    np.testing.assert_allclose(out["probs"][0], PROBS, atol=1e-6)


def test_misaligned_input_is_copied():
    raw = np.zeros(4 * 4 + 1, np.uint8)
    x = np.frombuffer(raw.data, dtype=np.float32, count=4, offset=1).reshape(1, 4)
    assert x.__array_interface__["data"][0] % 4 != 0
    raw[1:17] = X.view(np.uint8).ravel()
    s = onemodel.Session(SAMPLES / "classifier.onnx")
    out, (borrowed, copied) = counted(lambda: s.run({"x": x}))
    assert (borrowed, copied) == (0, 1)
    np.testing.assert_allclose(out["probs"][0], PROBS, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: np.repeat(X, 4, axis=0)[::2],  # every other row
                                  lambda: np.asfortranarray(np.concatenate([X, X])),
                                  lambda: X.astype(">f4")])
def test_strided_or_foreign_order_input_is_copied(make):
    x = make()
    s = onemodel.Session(SAMPLES / "classifier.onnx")
    out, (borrowed, copied) = counted(lambda: s.run({"x": x}))
    assert (borrowed, copied) == (0, 1)
    np.testing.assert_allclose(out["probs"], np.tile(PROBS, (x.shape[0], 1)), atol=1e-6)


def _guarded_array(count: int):
    """A float32 array whose last byte is the last byte before a PROT_NONE page: a kernel reading
    past the input's end stops the process instead of passing unseen."""
    page = mmap.PAGESIZE
    mm = mmap.mmap(-1, 2 * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.mprotect(base + page, page, 0) == 0  # PROT_NONE
    x = np.frombuffer(mm, dtype=np.float32, count=count, offset=page - 4 * count)

    def release():
        # The mapping lives as long as this closure (an unmapped range would fail here).
        assert mm is not None and libc.mprotect(base + page, page, 3) == 0  # PROT_READ | PROT_WRITE

    return x, release


@pytest.mark.parametrize("mode", ["fast", "exact"])
@pytest.mark.parametrize("engine", ["optimized", "reference"])
def test_inputs_ending_at_a_guard_page(mode, engine):
    x, release = _guarded_array(256)
    try:
        x[:] = np.load(DATA / "wide_x.npy").ravel()
        s = onemodel.Session(SAMPLES / "wide.onnx", mode=mode, engine=engine, threads=2)
        want = s.run({"x": np.load(DATA / "wide_x.npy")})["y"]  # a pooled copy: the same bits
        got, (borrowed, copied) = counted(lambda: s.run({"x": x.reshape(1, 256)}))
        assert (borrowed, copied) == (1, 0)
        np.testing.assert_array_equal(got["y"], want)
        c, release_c = _guarded_array(4)
        try:
            c[:] = X.ravel()
            probs = onemodel.Session(SAMPLES / "classifier.onnx", mode=mode, engine=engine).run({"x": c.reshape(1, 4)})
            np.testing.assert_allclose(probs["probs"][0], PROBS, atol=1e-6)
        finally:
            del c
            release_c()
    finally:
        del x
        release()
