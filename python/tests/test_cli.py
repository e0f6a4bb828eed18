"""python -m onemodel: `run` prints the C++ command line's line per output (tools/cli/cmd_run.cpp:
name, type, dims, sha256 of the raw little-endian bytes), so exact-mode hashes equal the C++
CLI's. The golden lines below were printed by the C++ `onemodel run --mode exact` (main 1ecc325,
Zen 4); exact mode gives these bits on every CPU. When a C++ CLI is built (ONEMODEL_CLI,
build/rel or build/checked) the test also runs it and compares line for line."""

import subprocess
import sys

import pytest

from conftest import DATA, SAMPLES, cxx_cli

RUNS = {
    "wide": (["wide.onnx", "--input", f"x={DATA / 'wide_x.npy'}"],
             ["y float [1, 64] sha256=46f9f311443646a9f0883ba290cbcd448390262b9f9329003c326830a9bed438"]),
    "classifier": (["classifier.onnx", "--input", f"x={SAMPLES / 'classifier_x.npy'}"],
                   ["probs float [1, 3] sha256=21b39e674989ace507ed3e991866d37241369ff91e73906199767f8f5ccd532c"]),
    "scorer": (["scorer.onnx", "--input", f"features={SAMPLES / 'scorer_features.npy'}",
                "--input", f"bias={SAMPLES / 'scorer_bias.npy'}"],
               ["score float [2, 2] sha256=71b9ede706e7439e363e03ea65573d9dcfb2b0115590cd2cbeab22a8428259a0",
                "best float [2] sha256=47ee07cbf3504edb38f53221eee6d22c3c5175475b93c30335779b821753af01"]),
}


def py_cli(*args):
    return subprocess.run([sys.executable, "-m", "onemodel", *args], capture_output=True, text=True, timeout=300)


def with_model(args):
    return [str(SAMPLES / args[0]), *args[1:]]


@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.parametrize("engine", ["optimized", "reference"])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_exact_hashes_equal_the_golden_lines(name, engine, threads):
    args, golden = RUNS[name]
    r = py_cli("run", *with_model(args), "--mode", "exact", "--engine", engine, "--threads", threads)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == golden


@pytest.mark.parametrize("name", sorted(RUNS))
def test_exact_hashes_equal_the_cxx_cli(name):
    cli = cxx_cli()
    if cli is None:
        pytest.skip("no C++ onemodel built (set ONEMODEL_CLI); the golden lines are checked above")
    args, _ = RUNS[name]
    cxx = subprocess.run([cli, "run", *with_model(args), "--mode", "exact"], capture_output=True, text=True,
                         timeout=300)
    py = py_cli("run", *with_model(args), "--mode", "exact")
    assert cxx.returncode == 0 and py.returncode == 0, cxx.stderr + py.stderr
    assert py.stdout.splitlines() == cxx.stdout.splitlines()


def test_info():
    r = py_cli("info", str(SAMPLES / "scorer.onnx"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "  features: float [batch, 3]" in lines
    assert "  bias: float [1, 2]" in lines
    assert "  best: float [batch]" in lines


def test_errors_and_usage(tmp_path):
    r = py_cli("run", str(tmp_path / "missing.onnx"))
    assert r.returncode == 1 and r.stderr.startswith("Io: "), r.stderr
    r = py_cli("run", str(SAMPLES / "classifier.onnx"), "--mode", "slow")
    assert r.returncode == 2
    r = py_cli("run", str(SAMPLES / "classifier.onnx"), "--input", f"y={SAMPLES / 'classifier_x.npy'}")
    assert r.returncode == 1 and r.stderr.startswith("InvalidInput: "), r.stderr
