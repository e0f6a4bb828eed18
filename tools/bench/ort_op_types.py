"""ONNX Runtime's time per operator type on one model (issue 15, profiles): its profiler's
`<node>_kernel_time` events over warm calls, each node's median, summed per op type -- the
counterpart of the "operator types" table of `onemodel profile`. ONNX Runtime's own fusions show
under their names (QuickGelu is its x * Sigmoid(x), FusedConv a Conv with its activation, Reorder*
its NCHWc layout changes), so compare a type's row with the types of ours that cover the same nodes.
A measurement, never a test; the profiler adds a little per node.

  PY tools/bench/ort_op_types.py MODEL.onnx REFDIR [--threads 1] [--runs 30]
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
    args = parser.parse_args()

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="ort_op_types_"), "profile")
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    feeds = {os.path.basename(f)[:-4]: np.load(f) for f in sorted(glob.glob(os.path.join(args.refdir, "inputs", "*.npy")))}
    for _ in range(args.warmup + args.runs):
        session.run(None, feeds)
    path = session.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)

    per_node = collections.defaultdict(list)
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            per_node[(event["args"].get("op_name"), event["name"][: -len("_kernel_time")])].append(event["dur"])
    by_type = collections.defaultdict(float)
    nodes = collections.Counter()
    for (op, _), durations in per_node.items():
        warm = sorted(durations[args.warmup:] if len(durations) > args.warmup else durations)
        by_type[op] += warm[len(warm) // 2]
        nodes[op] += 1
    total = sum(by_type.values())
    print(f"ONNX Runtime {ort.__version__}, {args.threads} thread(s), {args.runs} warm calls, medians per node (us)")
    for op, us in sorted(by_type.items(), key=lambda item: -item[1]):
        print(f"{op:28s} {nodes[op]:4d} nodes {us:10.1f} {100.0 * us / total:5.1f}%")
    print(f"{'total':28s} {sum(nodes.values()):4d} nodes {total:10.1f}")


if __name__ == "__main__":
    main()
