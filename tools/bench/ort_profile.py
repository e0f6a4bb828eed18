"""ONNX Runtime's per-node profile of one model, shared by ort_op_types.py and ort_nodes.py: its
profiler's `<node>_kernel_time` events over warm calls (issue 15, profiles). A measurement helper,
never a test."""
import argparse
import collections
import glob
import json
import os
import tempfile

import numpy as np
import onnxruntime as ort


def parser(description):
    """The arguments both scripts take: MODEL REFDIR [--threads] [--runs] [--warmup]."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("model")
    p.add_argument("refdir")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    return p


def node_times(model, refdir, threads, runs, warmup):
    """[(node name, op type, [microseconds of each warm call])] in run order; REFDIR holds
    inputs/*.npy as the bar's reference directories do."""
    feeds = {os.path.basename(f)[:-4]: np.load(f) for f in sorted(glob.glob(os.path.join(refdir, "inputs", "*.npy")))}
    if not feeds:
        raise SystemExit(f"no inputs/*.npy under {refdir}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    with tempfile.TemporaryDirectory(prefix="ort_profile_") as tmp:
        options.profile_file_prefix = os.path.join(tmp, "profile")
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        for _ in range(warmup + runs):
            session.run(None, feeds)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    calls = collections.defaultdict(list)
    op_type = {}
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            name = event["name"][: -len("_kernel_time")]
            calls[name].append(event["dur"])  # dicts keep the first call's order: run order
            op_type[name] = event.get("args", {}).get("op_name", "?")
    return [(name, op_type[name], durations[-runs:]) for name, durations in calls.items()]


def version():
    return ort.__version__
