#!/usr/bin/env python3
"""A FAKE stand-in for build/<dir>/bench_model_row, for testing bar.py and report.py only.

    tools/bench/testing/fake_bench_model_row.py REFDIR --mode fast|exact --threads N \
        [--reps 3] [--target-seconds 1.0] [--max-calls 1000]

It does not run any model. It reads REFDIR/index.json, touches some memory so that peak RSS is
not trivial, sleeps a little and prints one JSON line with the keys bench_model_row prints, with
made-up numbers (version "FAKE", kernel_path "fake"). With FAKE_BENCH_WRONG=1 it reports a scaled
error above the gate; with FAKE_BENCH_FAIL=1 it exits with status 3 and prints nothing.
"""
import argparse
import json
import os
import random
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("refdir", type=Path)
    parser.add_argument("--mode", choices=["fast", "exact"], required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--target-seconds", type=float, default=1.0)
    parser.add_argument("--max-calls", type=int, default=1000)
    args = parser.parse_args()
    if os.environ.get("FAKE_BENCH_FAIL") == "1":
        print("fake_bench_model_row: failing on purpose", file=sys.stderr)
        return 3
    index = json.loads((args.refdir / "index.json").read_text(encoding="utf-8"))
    ballast = bytearray(32 << 20)  # 32 MiB, touched
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    time.sleep(min(0.3, args.target_seconds))
    rng = random.Random(hash((index["model"], index["batch"], args.mode, args.threads)))
    base = 0.05 * index["batch"] * (1.0 if args.mode == "fast" else 1.6) / args.threads ** 0.8
    reps = [base * (1 + 0.03 * rng.random()) for _ in range(args.reps)]
    reps.sort()
    median = reps[len(reps) // 2]
    err = 2e-7 if args.mode == "fast" else 3e-7
    if os.environ.get("FAKE_BENCH_WRONG") == "1":
        err = 5e-3
    row = {
        "engine": "onemodel-optimized", "mode": args.mode, "threads": args.threads,
        "model": index["model"], "variant": index["variant"], "batch": index["batch"],
        "load_ms": 3.5, "first_run_ms": 2.5 * median, "median_ms": median, "min_ms": reps[0],
        "max_ms": reps[-1], "spread_pct": 100 * (reps[-1] - reps[0]) / median, "reps": args.reps,
        "calls_per_rep": min(args.max_calls, max(1, int(args.target_seconds * 1e3 / median))),
        "alloc_bytes_per_iter": 0, "allocs_per_iter": 0, "max_scaled_err": err,
        "scaled_err": {o["name"]: err for o in index["outputs"]},
        "kernel_path": "fake", "version": "FAKE",
    }
    print(json.dumps(row))
    del ballast
    return 0


if __name__ == "__main__":
    sys.exit(main())
