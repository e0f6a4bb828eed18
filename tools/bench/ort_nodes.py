"""ONNX Runtime's time per node on one model (issue 15, profiles): its profiler's
`<node>_kernel_time` events over warm calls, each node's median in run order, with ONNX Runtime's
op type (its fused and NCHWc nodes under their own names, e.g. `..._nchwc`). The counterpart of
the node table of `onemodel profile`, for comparing layers one by one where ort_op_types.py sums
them by type and conv_layers.py matches Convs through tensor names. A measurement, never a test;
the profiler adds a little per node. Pin it as you pin ours (`taskset -c 0`) on machines whose
cores differ.

  PY tools/bench/ort_nodes.py MODEL.onnx REFDIR [--threads 1] [--runs 30] [--filter TEXT]
  (REFDIR holds inputs/*.npy, as the bar's reference directories do)
"""
import argparse
import collections
import glob
import json
import os
import tempfile

import numpy as np
import onnxruntime as ort


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("refdir")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--filter", default="", help="only nodes whose name contains this text")
    args = parser.parse_args()

    inputs = {os.path.basename(f)[:-4]: np.load(f) for f in sorted(glob.glob(os.path.join(args.refdir, "inputs", "*.npy")))}
    if not inputs:
        parser.error(f"no inputs/*.npy under {args.refdir}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    with tempfile.TemporaryDirectory() as tmp:
        options.profile_file_prefix = os.path.join(tmp, "ort_nodes")
        session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
        for _ in range(args.warmup + args.runs):
            session.run(None, inputs)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    calls = collections.defaultdict(list)
    op_type = {}
    order = []
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = e["name"][:-len("_kernel_time")]
            if name not in calls:
                order.append(name)
            calls[name].append(e["dur"])
            op_type[name] = e.get("args", {}).get("op_name", "?")
    print(f"ONNX Runtime {ort.__version__}, {args.threads} thread(s), {args.runs} warm calls, median per node (us)")
    total = 0.0
    for name in order:
        median = float(np.median(calls[name][-args.runs:]))
        total += median
        if args.filter in name:
            print(f"{median:9.1f}  {op_type[name]:22s} {name}")
    print(f"{total:9.1f}  total over {len(order)} nodes")


if __name__ == "__main__":
    main()
