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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ort_profile  # noqa: E402


def main():
    parser = ort_profile.parser(__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="only nodes whose name contains this text")
    args = parser.parse_args()

    nodes = ort_profile.node_times(args.model, args.refdir, args.threads, args.runs, args.warmup)
    print(f"ONNX Runtime {ort_profile.version()}, {args.threads} thread(s), {args.runs} warm calls, "
          "median per node (us)")
    total = 0.0
    for name, op, durations in nodes:
        warm = sorted(durations)
        median = warm[len(warm) // 2]
        total += median
        if args.filter in name:
            print(f"{median:9.1f}  {op:22s} {name}")
    print(f"{total:9.1f}  total over {len(nodes)} nodes")


if __name__ == "__main__":
    main()
