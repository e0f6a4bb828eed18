#!/usr/bin/env python3
"""The conformance and differential sweep over Ray workers (docs/sweeps.md).

  ray_sweep.py --out DIR [--cli build/rel/onemodel] [--data ../shared/onnx-backend-test]
               [--every N [--offset K]] [--runs NAME,...] [--shards N]
               [--num-cpus N | --address ADDR] [--single] [--check-expected FILE]

Runs the runs of tests/cmake/conformance.cmake (reference and optimized engine, fast and exact;
the twin gate on each kernel path) with `onemodel conformance`. The cases (all, or every N-th)
are cut into --shards contiguous shards; each (run, shard) is one Ray task that runs the runner
binary on its shard and returns the TSV rows and the runner's output; the driver merges them into
DIR/<run>.tsv and DIR/summary.txt, byte for byte what one process per run gives. --single runs
each run as that one process (no Ray), for comparison. Without --address a local Ray instance is
started (--num-cpus workers, no dashboard). On a cluster every node needs the runner, the golden
tool and the data at the same paths.

Exit status 0, or 1 when some case failed in some run (as the runner's), 3 when the merge finds a
shard that lost, gained or reordered cases.
"""
import argparse
import os
import subprocess
import sys
import time

SWEEP_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SWEEP_DIR))
sys.path.insert(0, SWEEP_DIR)
from sweep_cases import list_cases, split_into_shards, take_every  # noqa: E402
from sweep_merge import MergeError, merge_run, write_outputs  # noqa: E402
from sweep_runs import run_shard, select_runs  # noqa: E402


def shard_task(sweep_dir, cli, golden, data_root, run, cases):
    """One Ray task. It imports the sweep modules itself: a worker is another process (or machine)
    whose sys.path the driver's insert above did not reach."""
    if sweep_dir not in sys.path:
        sys.path.insert(0, sweep_dir)
    from sweep_runs import run_shard as run_one_shard
    return run_one_shard(cli, golden, data_root, run, cases)


def run_with_ray(args, runs, shards):
    # No usage report to Ray's servers from CI or a developer's sweep (Ray sends one by default).
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    started = time.monotonic()
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        print(f"ray_sweep: Ray up in {time.monotonic() - started:.1f} s with "
              f"{ray.cluster_resources().get('CPU', 0):g} CPUs", file=sys.stderr)
        task = ray.remote(num_cpus=1)(shard_task)
        # Every (run, shard) pair at once: Ray runs them as workers free up; the results are put
        # back in (run, shard) order whatever order they finish in.
        futures = {run[0]: [task.remote(SWEEP_DIR, args.cli, args.golden, args.data, run, cases) for cases in shards]
                   for run in runs}
        return {run[0]: merge_run(run[0], list(zip(shards, ray.get(futures[run[0]])))) for run in runs}
    finally:
        ray.shutdown()


def run_single(args, runs, cases, whole_root):
    # One process per run over all the cases: the data root itself when every case is swept (the
    # command tests/cmake/conformance.cmake runs), else a tree of the chosen cases.
    return {run[0]: run_shard(args.cli, args.golden, args.data, run, None if whole_root else cases) for run in runs}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for <run>.tsv and summary.txt")
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "rel", "onemodel"))
    parser.add_argument("--golden", help="the golden tool (kernel-path probe); default: beside --cli")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(ROOT), "shared", "onnx-backend-test"))
    parser.add_argument("--every", type=int, default=1, help="sweep every N-th case (default every case)")
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--runs", default="", help="comma-separated run names (default all)")
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--num-cpus", type=int, default=None, help="workers of the local Ray instance")
    parser.add_argument("--address", help="an existing Ray cluster (default: start a local one)")
    parser.add_argument("--single", action="store_true", help="one runner process per run, no Ray")
    parser.add_argument("--check-expected", metavar="FILE",
                        help="then check the engine-mode TSVs with tools/conformance_check.py")
    args = parser.parse_args()
    args.cli = os.path.abspath(args.cli)
    args.golden = os.path.abspath(args.golden or os.path.join(os.path.dirname(args.cli), "golden"))
    args.data = os.path.abspath(args.data)
    for tool in (args.cli, args.golden):
        if not os.access(tool, os.X_OK):
            parser.error(f"{tool} is not an executable (build the onemodel_cli and golden targets)")

    runs = select_runs([name for name in args.runs.split(",") if name])
    all_cases = list_cases(args.data)
    cases = take_every(all_cases, args.every, args.offset)
    started = time.monotonic()
    try:
        if args.single:
            results = run_single(args, runs, cases, whole_root=len(cases) == len(all_cases))
            how = "single process per run"
        else:
            shards = split_into_shards(cases, args.shards)
            results = run_with_ray(args, runs, shards)
            how = f"{len(shards)} shards per run on Ray"
    except MergeError as error:
        print(f"ray_sweep: merge failed: {error}", file=sys.stderr)
        return 3
    summary = write_outputs(args.out, runs, results)
    print(f"ray_sweep: {len(cases)} cases x {len(runs)} runs ({how}) in {time.monotonic() - started:.1f} s; "
          f"wrote {summary}", file=sys.stderr)
    status = 1 if any(result["status"] == 1 for result in results.values()) else 0
    if args.check_expected:
        pairs = [f"--tsv={run[0]}={os.path.join(args.out, run[0] + '.tsv')}" for run in runs
                 if not run[0].startswith("twin-")]
        check = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "conformance_check.py"),
                                "--expected", args.check_expected, *pairs])
        status = max(status, check.returncode)
    return status


if __name__ == "__main__":
    sys.exit(main())
