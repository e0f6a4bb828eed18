"""Per-Conv-layer time, this engine against ONNX Runtime, over zoo rows (issue 15, "Convolution").

Ours: `onemodel profile MODEL --trace` (one event per node call); ONNX Runtime: its profiler
(SessionOptions.enable_profiling, one `<node>_kernel_time` event per call). Each Conv is keyed by
its shape (input, weights, group, strides, pads, dilations, from ONNX shape inference); ONNX
Runtime's fused nodes (NCHWc `..._nchwc`, Conv + activation, Conv + Add) and the activation,
Add, Mul or Sigmoid nodes it leaves after a Conv are counted to that Conv, as our fused Conv
nodes include them. A layer's time is the minimum over the timed calls (the least disturbed on a
shared machine; STAT=median for the median). Writes a JSON of rows per model and prints the
shapes ranked by (ours - ORT) summed over the models: a measurement, never a test.

  PY tools/bench/conv_layers.py --binary build/rel/onemodel --threads 1 --runs 25 \\
      [--mode fast] [--models resnet18,googlenet] [--out layers.json]
"""
import argparse
import collections
import glob
import json
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
from onnx import shape_inference

CNN_ROWS = ["resnet18", "resnext50", "regnet-y-400mf", "googlenet", "shufflenet-v2", "mnasnet", "densenet121",
            "squeezenet", "efficientnet-b0", "convnext-t", "deeplabv3-mbv3", "lraspp-mbv3"]
# QuickGelu: ONNX Runtime's fusion of x * Sigmoid(x) (SiLU, EfficientNet's activation); without it
# that activation's time fell out of ONNX Runtime's per-layer sums.
FOLLOWERS = ("Relu", "Clip", "Add", "HardSwish", "Sigmoid", "HardSigmoid", "LeakyRelu", "BatchNormalization", "Mul",
             "QuickGelu")


def conv_keys(graph):
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
              for vi in list(graph.value_info) + list(graph.input) + list(graph.output)}
    inits = {i.name: list(i.dims) for i in graph.initializer}
    keys = {}
    for n in graph.node:
        if n.op_type != "Conv":
            continue
        a = {at.name: onnx.helper.get_attribute_value(at) for at in n.attribute}
        keys[n.name] = (f"x{shapes.get(n.input[0])} w{inits.get(n.input[1])} g{a.get('group', 1)} "
                        f"s{a.get('strides', [1, 1])} p{a.get('pads', [0, 0, 0, 0])} d{a.get('dilations', [1, 1])}")
    return keys


def conv_of_tensor(producer, tensor, depth=0):
    """The Conv whose result `tensor` is, through at most four follower nodes."""
    p = producer.get(tensor)
    if p is None or depth > 3:
        return None
    if p.op_type == "Conv":
        return p.name
    if p.op_type not in FOLLOWERS:
        return None
    for i in p.input:  # a Conv among the direct inputs first (a residual Add's other operand is not it)
        q = producer.get(i)
        if q is not None and q.op_type == "Conv":
            return q.name
    for i in p.input:
        c = conv_of_tensor(producer, i, depth + 1)
        if c:
            return c
    return None


def measure(model_name, args, stat):
    home = os.path.expanduser(os.environ.get("ONEMODEL_HOME", "~/onemodel"))
    # A zoo row (zoo/NAME) or one of the bar's own rows (mobilenetv3, resnet50): the reference
    # directory names its model file.
    refdir = f"{home}/reference/linux-x86_64/zoo/{model_name}/fp32/b1"
    if not os.path.isdir(refdir):
        refdir = f"{home}/reference/linux-x86_64/{model_name}/fp32/b1"
    with open(f"{refdir}/index.json", encoding="utf-8") as f:
        path = json.load(f)["model_file"]
    ref = f"{refdir}/inputs"
    inputs = {os.path.basename(f)[:-4]: np.load(f) for f in glob.glob(ref + "/*.npy")}
    graph = shape_inference.infer_shapes(onnx.load(path)).graph
    keys = conv_keys(graph)
    trace = f"/tmp/conv_layers_{os.getpid()}_{model_name}.json"
    cmd = [args.binary, "profile", path, "--runs", str(args.runs), "--threads", str(args.threads), "--mode", args.mode,
           "--trace", trace]
    for k in inputs:
        cmd += ["--input", f"{k}={ref}/{k}.npy"]
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    os.remove(trace)
    ours_calls = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and "Conv" in e["args"].get("model_op_type", ""):
            ours_calls[e["name"]].append(e["dur"])
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.enable_profiling = True
    so.profile_file_prefix = f"/tmp/conv_layers_ort_{os.getpid()}"
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    for _ in range(2 + args.runs):
        session.run(None, inputs)
    profile = session.end_profiling()
    with open(profile) as f:
        ort_events = json.load(f)
    os.remove(profile)
    ort_calls = collections.defaultdict(list)
    for e in ort_events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            ort_calls[e["name"][:-len("_kernel_time")]].append(e["dur"])
    producer = {o: n for n in graph.node for o in n.output}
    ort_conv = collections.defaultdict(float)
    for name, calls in ort_calls.items():
        conv = name if name in keys else conv_of_tensor(producer, name[:-6] if name.endswith("_nchwc") else name)
        if conv is not None:
            ort_conv[conv] += stat(calls[-args.runs:])
    return [(name, key, stat(ours_calls[name]) if name in ours_calls else None, ort_conv.get(name))
            for name, key in keys.items()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--mode", default="fast")
    parser.add_argument("--models", default=",".join(CNN_ROWS))
    parser.add_argument("--out", default="conv_layers.json")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    stat = (lambda v: float(np.median(v))) if os.environ.get("STAT") == "median" else (lambda v: float(min(v)))
    rows = {}
    for m in args.models.split(","):
        rows[m] = measure(m, args, stat)
        ours = sum(r[2] or 0 for r in rows[m])
        theirs = sum(r[3] or 0 for r in rows[m])
        print(f"{m}: {len(rows[m])} Conv nodes, ours {ours:.0f} us, ORT {theirs:.0f} us", flush=True)
    with open(args.out, "w") as f:
        json.dump(rows, f)
    by_shape = collections.defaultdict(lambda: [0.0, 0.0, 0, set()])
    for m, layers in rows.items():
        for _, key, ours, theirs in layers:
            if ours is None or theirs is None:
                continue
            a = by_shape[key]
            a[0] += ours
            a[1] += theirs
            a[2] += 1
            a[3].add(m)
    print("loss_us ours_us ort_us nodes shape models")
    for key, (ours, theirs, n, models) in sorted(by_shape.items(), key=lambda kv: kv[1][1] - kv[1][0])[:args.top]:
        print(f"{ours - theirs:9.0f} {ours:9.0f} {theirs:9.0f} {n:3d} {key} {','.join(sorted(models))}")


if __name__ == "__main__":
    main()
