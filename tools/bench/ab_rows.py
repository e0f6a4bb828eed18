#!/usr/bin/env python3
"""A/B timing of bench_model_row builds on one reference directory, ONNX Runtime beside them.

    PY tools/bench/ab_rows.py REFDIR --bin NAME=BIN [--bin NAME=BIN ...] [--threads "1 2"]
                              [--modes "fast exact"] [--rounds 3] [--reps 3] [--target-seconds 1.0]

For a change whose effect is smaller than a shared machine's drift (a graph pass, say), the rows
are run in interleaved rounds - per round and thread count: ONNX Runtime (tools/bench/ort_row.py),
then each mode with each binary in the order given - so a load that comes and goes hits every
side alike. Each process is one row as bar.py would run it (bench-method.md "The bar runner"),
without /usr/bin/time and the load gate: this is a comparison, not a published bar. Prints one
table (median over rounds of each row's median ms, and the lowest row median; the scaled error of
the last round) and the 1-minute load average before and after; the JSON lines go to --jsonl.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_row(command: list[str]) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"ab_rows: {' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("refdir", type=Path)
    parser.add_argument("--bin", action="append", required=True, metavar="NAME=BIN",
                        help="a build to time, named in the table (repeat for each)")
    parser.add_argument("--threads", default="1 2")
    parser.add_argument("--modes", default="fast exact")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--target-seconds", type=float, default=1.0)
    parser.add_argument("--jsonl", type=Path, default=None)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    binaries = []
    for item in args.bin:
        name, sep, path = item.partition("=")
        if not sep or not name or not Path(path).is_file():
            parser.error(f"--bin {item!r}: expected NAME=PATH of an existing file")
        binaries.append((name, Path(path)))
    timing = ["--reps", str(args.reps), "--target-seconds", str(args.target_seconds)]
    threads = [int(t) for t in args.threads.split()]
    modes = args.modes.split()
    rows: dict[tuple, list[dict]] = {}
    load_before = os.getloadavg()[0]
    log = open(args.jsonl, "a", encoding="utf-8") if args.jsonl else None
    for _ in range(args.rounds):
        for t in threads:
            plan = [(("ort", "-", t), [sys.executable, str(HERE / "ort_row.py"), str(args.refdir), "--threads", str(t)])]
            for mode in modes:
                for side, binary in binaries:
                    plan.append(((side, mode, t), [str(binary), str(args.refdir), "--mode", mode, "--threads", str(t)]))
            for key, command in plan:
                record = run_row(command + timing)
                record["ab_side"] = key[0]
                rows.setdefault(key, []).append(record)
                if log:
                    log.write(json.dumps(record) + "\n")
    if log:
        log.close()
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"{args.rounds} rounds of {args.reps} reps")
    print("| engine | mode | threads | median ms (rounds) | lowest ms | scaled error |")
    print("|---|---|---|---|---|---|")
    for (side, mode, t), records in rows.items():
        medians = [r["median_ms"] for r in records]
        err = records[-1].get("max_scaled_err", float("nan"))
        print(f"| {side} | {mode} | {t} | {statistics.median(medians):.2f} | {min(medians):.2f} | {err:.2e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
