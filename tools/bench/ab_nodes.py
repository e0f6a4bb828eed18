#!/usr/bin/env python3
"""A/B timing per node: `onemodel profile` of several builds (or settings), alternated in rounds.

    PY tools/bench/ab_nodes.py REFDIR --bin NAME=COMMAND [--bin NAME=COMMAND ...] [--threads 1]
                               [--mode fast] [--rounds 3] [--runs 20] [--min-us 20] [--pin CPU]

ab_rows.py compares whole rows; a change to a few layers moves a row less than the machine's drift
within the minutes a comparison takes, while the layers themselves move by more. This runs each
build's profile of the reference directory's model and inputs (index.json, as bar.py reads it) in
turn, round after round, so that a slow minute falls on every side, and prints each node's lowest
median over the rounds (the least disturbed), then the run's median (lowest and median over rounds).
COMMAND is the `onemodel` binary, optionally after environment settings, split like a shell line:
`--bin old=/tmp/onemodel_old --bin new='X=1 build/rel/onemodel'`. Nodes under --min-us in every
build are left out. A measurement, never a test; record the CPU with its figures.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

RUN_LINE = re.compile(r"run time mean [\d.]+ us, median ([\d.]+) us")


def model_inputs(refdir: Path) -> tuple[str, list[str]]:
    index = json.loads((refdir / "index.json").read_text())
    inputs = [f"{item['name']}={refdir / item['file']}" for item in index["inputs"]]
    return index["model_file"], inputs


def profile(command: str, model: str, inputs: list[str], args) -> tuple[dict[str, float], float]:
    words = shlex.split(command)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith(("/", ".")):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    argv = words + ["profile", model, "--threads", str(args.threads), "--runs", str(args.runs),
                    "--mode", args.mode]
    for item in inputs:
        argv += ["--input", item]
    if args.pin is not None:
        argv = ["taskset", "-c", str(args.pin)] + argv
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ab_nodes: {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    nodes: dict[str, float] = {}
    run = float("nan")
    for line in done.stdout.splitlines():
        if (match := RUN_LINE.search(line)) is not None:
            run = float(match.group(1))
        elif len(fields := line.split()) >= 10 and fields[0].isdigit() and fields[2].isdigit():
            # "# share% calls total_us mean_us median_us kind path type name" (a path may hold a space)
            nodes[fields[-1]] = float(fields[5])
    if not nodes:
        raise SystemExit(f"ab_nodes: no node table in the output of {' '.join(argv)}")
    return nodes, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("refdir", type=Path)
    parser.add_argument("--bin", action="append", required=True, metavar="NAME=COMMAND")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--mode", default="fast", choices=["fast", "exact"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20, help="warm runs per profile")
    parser.add_argument("--min-us", type=float, default=20.0)
    parser.add_argument("--pin", type=int, default=None, metavar="CPU", help="taskset -c CPU (one-thread runs)")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be at least 1")
    builds = []
    for spec in args.bin:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command:
            parser.error(f"--bin {spec!r}: expected NAME=COMMAND")
        builds.append((name, command))
    model, inputs = model_inputs(args.refdir)

    medians: dict[str, dict[str, list[float]]] = {name: {} for name, _ in builds}
    runs: dict[str, list[float]] = {name: [] for name, _ in builds}
    order: list[str] = []
    for _ in range(args.rounds):
        for name, command in builds:
            nodes, run = profile(command, model, inputs, args)
            for node, value in nodes.items():
                if node not in order:
                    order.append(node)
                medians[name].setdefault(node, []).append(value)
            runs[name].append(run)

    names = [name for name, _ in builds]
    print(f"{model}, {args.threads} thread(s), mode {args.mode}, {args.rounds} rounds of {args.runs} runs; "
          "us, lowest node median over the rounds")
    print("| node | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for node in order:
        values = [min(medians[name].get(node, [float("nan")])) for name in names]
        if all(not value >= args.min_us for value in values):
            continue
        print(f"| {node} | " + " | ".join(f"{value:.1f}" for value in values) + " |")
    print("| run median, lowest | " + " | ".join(f"{min(runs[n]):.1f}" for n in names) + " |")
    print("| run median, median | " + " | ".join(f"{statistics.median(runs[n]):.1f}" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
