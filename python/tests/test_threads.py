"""Concurrent runs of one session from Python threads: the GIL is released while the model runs
(the session is thread-safe, spec/session.md section 1), and each thread's results are its own."""

import threading

import numpy as np
import pytest

import onemodel
from conftest import SAMPLES

FEATURES = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
BIAS = np.array([[0.5, 1.5]], dtype=np.float32)
SCORE = np.array([[4.5, 6.5], [10.5, 12.5]], dtype=np.float32)


@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_four_threads_share_one_session(mode):
    # The scorer is linear in (features, bias): thread k gives k+1 times the inputs and must get
    # k+1 times the scores, exactly (small integers and halves), on every run.
    session = onemodel.Session(SAMPLES / "scorer.onnx", mode=mode, threads=1)
    runs, failures = 200, []
    barrier = threading.Barrier(4)

    def work(k):
        scale = np.float32(k + 1)
        f, b = FEATURES * scale, BIAS * scale
        barrier.wait()
        for _ in range(runs):
            out = session.run({"features": f, "bias": b})
            if not (np.array_equal(out["score"], SCORE * scale) and np.array_equal(out["best"], SCORE.max(1) * scale)):
                failures.append((k, out))
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_gil_is_released_during_run():
    # A second Python thread keeps taking timestamps while the main thread runs a long model (the
    # classifier on 200000 rows in the reference engine). With the GIL held for the run it could
    # take none in the middle part of any run; released, it takes many there.
    import sys
    import time

    session = onemodel.Session(SAMPLES / "classifier.onnx", engine="reference", threads=1)
    x = np.tile(np.array([[5.1, 3.5, 1.4, 0.2]], np.float32), (200000, 1))
    done = threading.Event()
    stamps = []

    def count():
        while not done.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    t = threading.Thread(target=count)
    t.start()
    windows = []
    try:
        for _ in range(5):
            start = time.perf_counter()
            session.run({"x": x})
            end = time.perf_counter()
            windows.append((start + 0.3 * (end - start), end - 0.3 * (end - start)))
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(old)
    inside = sum(1 for s in stamps for lo, hi in windows if lo < s < hi)
    assert inside >= 5 * 3, (inside, windows[:2])
