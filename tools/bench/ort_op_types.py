"""ONNX Runtime's time per operator type on one model (issue 15, profiles): its profiler's
`<node>_kernel_time` events over warm calls, each node's median, summed per op type -- the
counterpart of the "operator types" table of `onemodel profile`. ONNX Runtime's own fusions show
under their names (QuickGelu is its x * Sigmoid(x), FusedConv a Conv with its activation, Reorder*
its NCHWc layout changes), so compare a type's row with the types of ours that cover the same nodes.
A measurement, never a test; the profiler adds a little per node. ort_nodes.py lists the nodes.

  PY tools/bench/ort_op_types.py MODEL.onnx REFDIR [--threads 1] [--runs 30]
  (REFDIR holds inputs/*.npy, as the bar's reference directories do)
"""
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ort_profile  # noqa: E402


def main():
    parser = ort_profile.parser(__doc__.splitlines()[0])
    args = parser.parse_args()

    by_type = collections.defaultdict(float)
    nodes = collections.Counter()
    for _, op, durations in ort_profile.node_times(args.model, args.refdir, args.threads, args.runs, args.warmup):
        warm = sorted(durations)
        by_type[op] += warm[len(warm) // 2]
        nodes[op] += 1
    total = sum(by_type.values())
    print(f"ONNX Runtime {ort_profile.version()}, {args.threads} thread(s), {args.runs} warm calls, medians per node (us)")
    for op, us in sorted(by_type.items(), key=lambda item: -item[1]):
        print(f"{op:28s} {nodes[op]:4d} nodes {us:10.1f} {100.0 * us / total:5.1f}%")
    print(f"{'total':28s} {sum(nodes.values()):4d} nodes {total:10.1f}")


if __name__ == "__main__":
    main()
