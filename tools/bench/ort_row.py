#!/usr/bin/env python3
"""The ONNX Runtime side of one benchmark row (spec-source bench-method.md, "Procedure").

    $ONEMODEL_HOME/venvs/oracles/bin/python tools/bench/ort_row.py REFDIR --threads N \
        [--reps 3] [--target-seconds 1.0] [--max-calls 1000]

REFDIR is a reference directory made by tools/oracles/make_reference.py
($ONEMODEL_HOME/reference/<os>-<arch>/<model>/<variant>/b<batch>/ with index.json, inputs/*.npy,
outputs/*.npy). Run it with the oracle environment, $ONEMODEL_HOME/venvs/oracles/bin/python
(ONEMODEL_HOME defaults to ~/onemodel): onnxruntime 1.31.1 and numpy.

Procedure (the same as build/<dir>/bench_model_row): session creation timed as load_ms; one cold
call timed as first_run_ms; 3 untimed warm-up calls; then `reps` repetitions of the same number of
back-to-back calls, that number being as many as fit in about --target-seconds judged from the
warm-up calls (at least 1, at most --max-calls). A repetition's value is its mean time per call;
the row reports the median, min, max and spread_pct = 100 * (max - min) / median.

Settings: ORT_ENABLE_ALL, ORT_SEQUENTIAL, intra_op_num_threads = N, inter_op_num_threads = 1,
everything else at ONNX Runtime's defaults (so intra-op threads spin between calls, as they do
for any user). Inputs are bound once with an IOBinding (run_with_iobinding), and the outputs are
bound once to preallocated buffers of the reference outputs' shapes (when ONNX Runtime's output
shape is known to equal it), so a timed call neither copies inputs nor allocates outputs.

After timing, the last outputs are compared with the reference outputs: scaled error
max|ours - ref| / max|ref| per output. Prints exactly one JSON line on stdout with the keys of
bench_model_row (engine "onnxruntime", mode "-", allocation columns null).
"""
import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402


def kernel_path() -> str:
    """ONNX Runtime picks its MLAS kernels by CPUID inside the library and does not report which;
    the nearest thing it exposes is its build information."""
    try:
        info = ort.get_build_info()
    except Exception:  # noqa: BLE001 - old builds have no get_build_info
        return "-"
    info = info.replace("ORT Build Info:", "").strip()
    return f"mlas ({info})" if info else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("refdir", type=Path)
    parser.add_argument("--threads", type=int, required=True, help="intra-op threads (>= 1)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--target-seconds", type=float, default=1.0)
    parser.add_argument("--max-calls", type=int, default=1000)
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the SHA-256 check of the model file against index.json")
    args = parser.parse_args()
    if args.threads < 1 or args.reps < 1 or args.max_calls < 1 or args.target_seconds <= 0:
        parser.error("--threads, --reps and --max-calls must be >= 1, --target-seconds > 0")

    index = benchlib.read_index(args.refdir)
    model_file = Path(index["model_file"])
    if not args.no_verify and index.get("model_sha256"):
        actual = benchlib.sha256_file(model_file)
        if actual != index["model_sha256"]:
            print(f"ort_row: {model_file} has SHA-256 {actual}, index.json says {index['model_sha256']}",
                  file=sys.stderr)
            return 2

    # Inputs and reference outputs are read before anything is timed.
    feeds = {}
    for item in index["inputs"]:
        feeds[item["name"]] = np.ascontiguousarray(np.load(args.refdir / item["file"]))
    references = {item["name"]: np.load(args.refdir / item["file"]) for item in index["outputs"]}

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1

    start = time.perf_counter()
    session = ort.InferenceSession(str(model_file), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1e3

    # Bind once: inputs from the numpy arrays (CPU, no copy per call), outputs to preallocated
    # OrtValues when the model's declared output shape is compatible with the reference's, else
    # to ONNX Runtime-allocated CPU memory (then each call allocates its outputs).
    binding = session.io_binding()
    for name, array in feeds.items():
        binding.bind_cpu_input(name, array)
    bound_outputs = {}
    for out in session.get_outputs():
        ref = references.get(out.name)
        declared = out.shape
        compatible = (ref is not None and declared is not None and len(declared) == ref.ndim and
                      all(not isinstance(d, int) or d == r for d, r in zip(declared, ref.shape)))
        if compatible:
            buffer = np.empty(ref.shape, dtype=ref.dtype)
            value = ort.OrtValue.ortvalue_from_numpy(buffer)
            binding.bind_ortvalue_output(out.name, value)
            bound_outputs[out.name] = (buffer, value)  # keeps the buffer alive
        else:
            binding.bind_output(out.name, "cpu")

    def call():
        session.run_with_iobinding(binding)

    start = time.perf_counter()
    call()
    first_run_ms = (time.perf_counter() - start) * 1e3

    warm = []
    for _ in range(3):
        t0 = time.perf_counter()
        call()
        warm.append(time.perf_counter() - t0)
    per_call = max(statistics.median(warm), 1e-9)
    calls = max(1, min(args.max_calls, int(math.floor(args.target_seconds / per_call + 0.5))))

    rep_ms = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        rep_ms.append((time.perf_counter() - t0) * 1e3 / calls)

    median_ms = statistics.median(rep_ms)
    min_ms, max_ms = min(rep_ms), max(rep_ms)

    names = [out.name for out in session.get_outputs()]
    results = binding.copy_outputs_to_cpu()
    scaled = {}
    for name, value in zip(names, results):
        if name in references:
            ours = value if isinstance(value, np.ndarray) else np.asarray(value)
            scaled[name] = benchlib.scaled_error(ours, references[name])
    for name in references:
        if name not in scaled:
            scaled[name] = math.inf  # a reference output the session did not produce

    row = {
        "engine": "onnxruntime",
        "mode": "-",
        "threads": args.threads,
        "model": index.get("model"),
        "variant": index.get("variant"),
        "batch": index.get("batch"),
        "load_ms": round(load_ms, 3),
        "first_run_ms": round(first_run_ms, 3),
        "median_ms": round(median_ms, 4),
        "min_ms": round(min_ms, 4),
        "max_ms": round(max_ms, 4),
        "spread_pct": round(100.0 * (max_ms - min_ms) / median_ms, 3) if median_ms > 0 else 0.0,
        "reps": args.reps,
        "calls_per_rep": calls,
        "alloc_bytes_per_iter": None,
        "allocs_per_iter": None,
        "max_scaled_err": max(scaled.values()) if scaled else None,
        "scaled_err": scaled,
        "kernel_path": kernel_path(),
        "version": ort.__version__,
    }
    # Python's json writes inf/nan as Infinity/NaN; bar.py reads them back.
    print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
