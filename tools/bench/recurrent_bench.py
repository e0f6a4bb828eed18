#!/usr/bin/env python3
"""Recurrent benchmark of issue 15: a 2-layer bidirectional LSTM and GRU, ours against ONNX Runtime.

    $ONEMODEL_HOME/venvs/oracles/bin/python tools/bench/recurrent_bench.py ROOT \
        --bench-bin build/rel/bench_model_row [--threads "1 2"] [--batches "1 8"]

Exports torch.nn.LSTM(128, 256, num_layers=2, bidirectional=True) and torch.nn.GRU of the same size
(weights from torch.manual_seed(15)) with torch.onnx.export (opset 17, dynamic batch; ONNX LSTM/GRU
nodes) to ROOT/models/, writes reference directories in the layout of tools/oracles/make_reference.py
(ROOT/<os>-<arch>/<model>/fp32/b<batch>/: X of shape [64, batch, 128] from a seeded generator, ONNX
Runtime's outputs, index.json "onemodel-reference-1"), then runs one process per row: ONNX Runtime
(tools/bench/ort_row.py: ORT_ENABLE_ALL, intra_op_num_threads N), our optimized engine fast and exact
and our reference engine (bench_model_row --engine), all with the bench method's procedure (median of
`reps` repetitions of back-to-back calls). Prints a Markdown table of median ms and scaled error.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402

SEQ, INPUT, HIDDEN, LAYERS = 64, 128, 256, 2


def export(kind: str, path: Path) -> None:
    torch.manual_seed(15)
    cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
    module = cls(INPUT, HIDDEN, num_layers=LAYERS, bidirectional=True).eval()
    x = torch.randn(SEQ, 1, INPUT)
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs = ["y", "h_n", "c_n"] if kind == "lstm" else ["y", "h_n"]
    axes = {"x": {1: "batch"}, "y": {1: "batch"}, "h_n": {1: "batch"}}
    if kind == "lstm":
        axes["c_n"] = {1: "batch"}
    torch.onnx.export(module, (x,), str(path), input_names=["x"], output_names=outputs, dynamic_axes=axes,
                      opset_version=17, dynamo=False)


def write_reference(refdir: Path, model: str, model_path: Path, batch: int) -> None:
    (refdir / "inputs").mkdir(parents=True, exist_ok=True)
    (refdir / "outputs").mkdir(parents=True, exist_ok=True)
    x = np.random.default_rng(1500 + batch).standard_normal((SEQ, batch, INPUT)).astype(np.float32)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    outputs = dict(zip(names, session.run(names, {"x": x})))

    def entry(kind, name, array):
        file = f"{kind}/{name}.npy"
        np.save(refdir / file, array)
        return {"name": name, "file": file, "dtype": str(array.dtype), "shape": list(array.shape),
                "sha256": benchlib.sha256_file(refdir / file)}

    index = {
        "format": "onemodel-reference-1",
        "model": model, "variant": "fp32", "batch": batch,
        "model_file": str(model_path),
        "model_sha256": benchlib.sha256_file(model_path),
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1,
                        "inter_op_num_threads": 1},
        "inputs": [entry("inputs", "x", x)],
        "outputs": [entry("outputs", name, outputs[name]) for name in names],
    }
    (refdir / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")


def run_row(command: list) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(command)} gave no row: {done.stderr[-2000:]}")
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--bench-bin", type=Path, required=True)
    parser.add_argument("--threads", default="1 2")
    parser.add_argument("--batches", default="1 8")
    parser.add_argument("--reps", default="5")
    parser.add_argument("--target-seconds", default="1.0")
    args = parser.parse_args()
    root = args.root.resolve()
    timing = ["--reps", args.reps, "--target-seconds", args.target_seconds]
    rows = []
    for model in ("lstm", "gru"):
        name = f"{model}2bi-h{HIDDEN}"
        model_path = root / "models" / f"{name}.onnx"
        export(model, model_path)
        for batch in [int(b) for b in args.batches.split()]:
            refdir = benchlib.row_refdir(root / benchlib.machine_class(), name, "fp32", batch)
            write_reference(refdir, name, model_path, batch)
            for threads in args.threads.split():
                runners = {
                    "onnxruntime": [sys.executable, str(Path(__file__).with_name("ort_row.py")), str(refdir),
                                    "--threads", threads] + timing,
                    "ours fast": [str(args.bench_bin), str(refdir), "--mode", "fast", "--threads", threads] + timing,
                    "ours exact": [str(args.bench_bin), str(refdir), "--mode", "exact", "--threads", threads] + timing,
                    "reference engine": [str(args.bench_bin), str(refdir), "--mode", "exact", "--threads", threads,
                                         "--engine", "reference", "--reps", "3", "--target-seconds", "0.5"],
                }
                for engine, command in runners.items():
                    row = run_row(command)
                    rows.append((name, batch, threads, engine, row))
                    print(f"{name} b{batch} t{threads} {engine}: {row.get('median_ms')} ms "
                          f"(err {row.get('max_scaled_err')})", file=sys.stderr, flush=True)
    record = benchlib.machine_record(args.bench_bin)
    print("machine: " + ", ".join(f"{k} {v}" for k, v in record.items()))
    print("| model | batch | threads | ORT ms | ours fast ms | ours exact ms | reference engine ms | fast err | exact err |")
    print("|---|---|---|---|---|---|---|---|---|")
    table = {}
    for name, batch, threads, engine, row in rows:
        table.setdefault((name, batch, threads), {})[engine] = row

    def err(row):
        value = row.get("max_scaled_err")
        return "-" if value is None else f"{value:.1e}"

    for (name, batch, threads), by in table.items():
        ms = {e: by[e].get("median_ms") for e in by}
        print(f"| {name} | {batch} | {threads} | {ms['onnxruntime']:.2f} | {ms['ours fast']:.2f} | "
              f"{ms['ours exact']:.2f} | {ms['reference engine']:.1f} | {err(by['ours fast'])} | "
              f"{err(by['ours exact'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
