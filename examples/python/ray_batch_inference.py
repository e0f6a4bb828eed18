#!/usr/bin/env python3
"""Batch inference with one onemodel.Session per Ray worker (docs/sweeps.md, "Batch inference").

  ray_batch_inference.py [--model models/samples/classifier.onnx] [--rows 1000] [--workers 2]
                         [--batch-size 64] [--mode fast|exact] [--expected FILE.npy]

A Ray Data dataset of --rows feature rows goes through `map_batches` with a callable class: each
of the --workers actors loads the model once, in __init__, and then runs every batch it is given
through that one Session. The driver collects the rows, puts them back in id order and checks
them: every id exactly once, one probability row per id, each summing to 1; with --expected, the
outputs within 1e-5 of that file (ONNX Runtime's outputs for the same rows, written by
examples/python/make_ray_batch_expected.py). Prints a few rows and exits 1 on any failed check.

The feature rows are a pure function of the row id (features_of), so the dataset is the same on
every machine and in every run without shipping a data file.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "models", "samples", "classifier.onnx")
TOLERANCE = 1e-5  # against ONNX Runtime's float32 outputs of this three-layer model


def features_of(ids):
    """Four features per row id, in [-2, 2]: a fixed arithmetic pattern (no random generator whose
    stream could change between NumPy versions)."""
    ids = np.asarray(ids, dtype=np.int64)[:, None]
    columns = np.arange(4, dtype=np.int64)[None, :]
    return (((ids * 7 + columns * 3 + 1) % 17).astype(np.float32) / np.float32(4.0) - np.float32(2.0))


class SessionPerWorker:
    """The callable class of map_batches: Ray Data makes one per actor, so the model is loaded once per
    worker and the Session is reused for every batch that worker gets."""

    def __init__(self, model_path, mode, threads):
        import onemodel

        self.session = onemodel.Session(model_path, mode=mode, threads=threads)
        if len(self.session.inputs) != 1:
            raise ValueError(f"{model_path}: this example feeds one input, the model has {len(self.session.inputs)}")
        self.input_name = self.session.inputs[0].name

    def __call__(self, batch):
        features = np.ascontiguousarray(batch["features"], dtype=np.float32)
        outputs = self.session.run({self.input_name: features})
        return {"id": batch["id"], **outputs}


def check(ids, outputs, rows, expected):
    """Returns the failed checks (empty when all hold)."""
    problems = []
    if not np.array_equal(ids, np.arange(rows)):
        problems.append(f"ids: expected each of 0..{rows - 1} once, got {len(ids)} rows "
                        f"({len(np.unique(ids))} distinct)")
        return problems
    for name, values in outputs.items():
        if values.shape[0] != rows:
            problems.append(f"{name}: {values.shape[0]} rows, expected {rows}")
    probs = next(iter(outputs.values()))
    if probs.ndim == 2:
        worst = float(np.max(np.abs(probs.sum(axis=1) - 1.0)))
        if worst > 1e-5:
            problems.append(f"probabilities do not sum to 1 (worst row off by {worst:.3g})")
    if expected is not None:
        if expected.shape != probs.shape:
            problems.append(f"expected outputs have shape {expected.shape}, the run gave {probs.shape}")
        else:
            difference = float(np.max(np.abs(probs.astype(np.float64) - expected.astype(np.float64))))
            print(f"largest difference from the expected outputs: {difference:.3g} (tolerance {TOLERANCE})")
            if not difference <= TOLERANCE:
                problems.append(f"outputs differ from the expected ones by {difference:.3g} > {TOLERANCE}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--mode", choices=("fast", "exact"), default="fast")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads of each worker's Session")
    parser.add_argument("--expected", help=".npy of the expected first output for rows 0..ROWS-1")
    parser.add_argument("--address", help="an existing Ray cluster (default: a local one with --workers CPUs)")
    args = parser.parse_args()
    if args.rows < 1 or args.workers < 1 or args.batch_size < 1:
        parser.error("--rows, --workers and --batch-size must be at least 1")
    expected = np.load(args.expected) if args.expected else None
    if expected is not None and expected.shape[0] < args.rows:
        parser.error(f"{args.expected} holds {expected.shape[0]} rows, fewer than --rows {args.rows}")

    # No usage report to Ray's servers (Ray sends one by default).
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray  # here, so make_ray_batch_expected.py can import features_of without Ray

    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    try:
        # The rows are made here and handed to Ray Data as in-memory blocks: no read task, so the
        # --workers CPUs all go to the Session actors (a read task waiting for a CPU that the actors
        # hold would stall the pipeline on a cluster of exactly --workers CPUs).
        ids = np.arange(args.rows)
        dataset = ray.data.from_items([{"id": int(i), "features": row} for i, row in zip(ids, features_of(ids))],
                                      override_num_blocks=min(args.rows, 4 * args.workers))
        predictions = dataset.map_batches(
            SessionPerWorker,
            fn_constructor_kwargs={"model_path": os.path.abspath(args.model), "mode": args.mode,
                                   "threads": args.threads},
            batch_size=args.batch_size, batch_format="numpy", num_cpus=1,
            compute=ray.data.ActorPoolStrategy(size=args.workers))
        batches = list(predictions.iter_batches(batch_size=None, batch_format="numpy"))
    finally:
        ray.shutdown()

    # Rows come back in whatever order the workers finished: sort by id before checking.
    ids = np.concatenate([batch["id"] for batch in batches])
    order = np.argsort(ids, kind="stable")
    names = [name for name in batches[0] if name != "id"]
    outputs = {name: np.concatenate([batch[name] for batch in batches])[order] for name in names}
    ids = ids[order]
    for row in range(min(3, len(ids))):
        shown = ", ".join(f"{name} {np.array2string(outputs[name][row], precision=4)}" for name in names)
        print(f"row {ids[row]}: features {np.array2string(features_of([ids[row]])[0], precision=2)} -> {shown}")
    problems = check(ids, outputs, args.rows, None if expected is None else expected[:args.rows])
    print(f"{len(ids)} rows through {args.workers} workers (mode {args.mode}, batches of {args.batch_size})")
    for problem in problems:
        print(f"FAILED: {problem}")
    print("ray batch inference: " + ("failed" if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
