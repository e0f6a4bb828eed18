"""One convolution at a time, this engine against ONNX Runtime (issue 15, "Convolution").

conv_layers.py times the Conv layers inside the zoo's models, where the memory a layer writes was
last touched a whole run ago; this tool times each layer shape alone, as a one-node model (Conv
with a bias, then Relu as a separate node unless the layer's entry says not), so that a kernel's
own speed is seen apart from the model around it. Ours: `onemodel bench` (the bar's per-call
median, fast and exact); ONNX Runtime 1.31.1: the median of five 0.3 s bursts of warm calls through
its Python API, one session option set as the bar's ort_row.py sets it (intra-op threads, one
inter-op thread). Our figure includes the copy of the output into the caller's tensor, which
`Session::run` makes (3.2 MB for a stem's 64 x 111 x 111 output: about a seventh of the call);
`onemodel profile` gives the node alone. Random weights (normal, 0.1 scale) and input; the
models and inputs are written to a temporary directory. A measurement, never a test; record the
CPU with the table (docs/kernel-performance.md "Session 30" holds the first one).

  PY tools/bench/single_convs.py --binary build/rel/onemodel [--threads 1] [--only r18,sq]
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# name: (input channels, output channels, map size, kernel, stride, pad, groups, Relu after)
LAYERS = {
    "r18 64->64 3x3 @56": (64, 64, 56, 3, 1, 1, 1, True),
    "r18 128->128 3x3 @28": (128, 128, 28, 3, 1, 1, 1, True),
    "r18 256->256 3x3 @14": (256, 256, 14, 3, 1, 1, 1, True),
    "r18 512->512 3x3 @7": (512, 512, 7, 3, 1, 1, 1, True),
    "r18 64->128 3x3/2 @56": (64, 128, 56, 3, 2, 1, 1, True),
    "r18 128->256 3x3/2 @28": (128, 256, 28, 3, 2, 1, 1, True),
    "sq 16->64 3x3 @55": (16, 64, 55, 3, 1, 1, 1, True),
    "dn 128->32 3x3 @56": (128, 32, 56, 3, 1, 1, 1, False),
    "rx 32 groups 128->128 3x3 @56": (128, 128, 56, 3, 1, 1, 32, True),
    "r50 1x1 256->64 @56": (256, 64, 56, 1, 1, 0, 1, True),
    "r50 1x1 64->256 @56": (64, 256, 56, 1, 1, 0, 1, True),
    "r50 1x1 512->128 @28": (512, 128, 28, 1, 1, 0, 1, True),
    "r50 1x1 1024->256 @14": (1024, 256, 14, 1, 1, 0, 1, True),
    "dn 1x1 256->128 @56": (256, 128, 56, 1, 1, 0, 1, False),
    "mn 1x1 32->16 @112": (32, 16, 112, 1, 1, 0, 1, False),
    "sq 1x1 512->1000 @13": (512, 1000, 13, 1, 1, 0, 1, True),
    "rx 1x1 1024->512 @14": (1024, 512, 14, 1, 1, 0, 1, True),
    "rx 1x1 512->1024 @14": (512, 1024, 14, 1, 1, 0, 1, True),
    "rx 1x1 2048->1024 @7": (2048, 1024, 7, 1, 1, 0, 1, True),
    "rx 32 groups 512->512 3x3 @14": (512, 512, 14, 3, 1, 1, 32, True),
    "rx 32 groups 256->256 3x3 @28": (256, 256, 28, 3, 1, 1, 32, True),
    "rx 32 groups 1024->1024 3x3 @7": (1024, 1024, 7, 3, 1, 1, 32, True),
    "rg 8-wide groups 208->208 3x3 @14": (208, 208, 14, 3, 1, 1, 26, True),
    "sq stem 3->64 3x3/2 @224": (3, 64, 224, 3, 2, 0, 1, True),
    "stem r18 3->64 7x7/2 @224": (3, 64, 224, 7, 2, 3, 1, True),
    "stem mn 3->32 3x3/2 @224": (3, 32, 224, 3, 2, 1, 1, True),
    "sq 32->128 3x3 @27": (32, 128, 27, 3, 1, 1, 1, True),
    "sq 48->192 3x3 @13": (48, 192, 13, 3, 1, 1, 1, True),
    "sq 64->256 3x3 @13": (64, 256, 13, 3, 1, 1, 1, True),
    "wg 8->16 3x3 @112": (8, 16, 112, 3, 1, 1, 1, True),
    "wg 16->16 3x3 @28": (16, 16, 28, 3, 1, 1, 1, True),
    "wg 32->32 3x3 @14": (32, 32, 14, 3, 1, 1, 1, True),
    "wg 64->64 3x3 @7": (64, 64, 7, 3, 1, 1, 1, True),
    "wg 128->32 3x3 @7": (128, 32, 7, 3, 1, 1, 1, True),
    "wg 128->128 3x3 @7": (128, 128, 7, 3, 1, 1, 1, True),
    "sq 1x1 128->16 @55": (128, 16, 55, 1, 1, 0, 1, True),
    "sq 1x1 16->64 @55": (16, 64, 55, 1, 1, 0, 1, True),
    "sq 1x1 256->32 @27": (256, 32, 27, 1, 1, 0, 1, True),
    "sq 1x1 384->48 @13": (384, 48, 13, 1, 1, 0, 1, True),
    "cx stem 3->96 4x4/4 @224": (3, 96, 224, 4, 4, 0, 1, False),
    "cx 96->192 2x2/2 @56": (96, 192, 56, 2, 2, 0, 1, False),
    "cx 192->384 2x2/2 @28": (192, 384, 28, 2, 2, 0, 1, False),
    "cx 384->768 2x2/2 @14": (384, 768, 14, 2, 2, 0, 1, False),
    "dw 32 3x3 @112": (32, 32, 112, 3, 1, 1, 32, True),
    "dw 144 3x3 @56": (144, 144, 56, 3, 1, 1, 144, True),
    "dw 480 3x3 @14": (480, 480, 14, 3, 1, 1, 480, True),
    "dw 672 5x5 @14": (672, 672, 14, 5, 1, 2, 672, True),
    "dw 1152 5x5 @7": (1152, 1152, 7, 5, 1, 2, 1152, True),
    "dw 96 3x3/2 @112": (96, 96, 112, 3, 2, 1, 96, True),
    "dw 144 5x5/2 @56": (144, 144, 56, 5, 2, 2, 144, True),
    "mn 1x1 576->96 @14": (576, 96, 14, 1, 1, 0, 1, False),
    "mn 1x1 96->576 @14": (96, 576, 14, 1, 1, 0, 1, True),
    "mn 1x1 480->80 @14": (480, 80, 14, 1, 1, 0, 1, False),
    "mn 1x1 1152->192 @7": (1152, 192, 7, 1, 1, 0, 1, False),
    "mn 1x1 192->1152 @7": (192, 1152, 7, 1, 1, 0, 1, True),
    "mn 1x1 120->40 @28": (120, 40, 28, 1, 1, 0, 1, False),
    "mn dw 576 3x3 @14": (576, 576, 14, 3, 1, 1, 576, True),
    "mn dw 1152 3x3 @7": (1152, 1152, 7, 3, 1, 1, 1152, True),
    "mn dw 240 5x5/2 @28": (240, 240, 28, 5, 2, 2, 240, True),
    "mn dw 120 5x5 @28": (120, 120, 28, 5, 1, 2, 120, True),
    # Patch embeddings: kernel = stride, no padding (each input value in one window).
    "patch deit 3->192 16x16/16 @224": (3, 192, 224, 16, 16, 0, 1, False),
    "patch vit 3->384 16x16/16 @224": (3, 384, 224, 16, 16, 0, 1, False),
    "patch swin 3->96 4x4/4 @224": (3, 96, 224, 4, 4, 0, 1, False),
    "patch convnext 3->96 4x4/4 @224": (3, 96, 224, 4, 4, 0, 1, False),
}


def write_layer(directory: Path, index: int, layer, rng):
    cin, cout, size, k, stride, pad, groups, relu = layer
    out = (size + 2 * pad - k) // stride + 1
    w = numpy_helper.from_array((rng.standard_normal((cout, cin // groups, k, k)) * 0.1).astype(np.float32), "w")
    b = numpy_helper.from_array((rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if relu else "y"], kernel_shape=[k, k],
                              strides=[stride, stride], pads=[pad] * 4, group=groups)]
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    graph = helper.make_graph(nodes, f"layer{index}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, size, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, out, out])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = directory / f"layer{index}.onnx"
    onnx.save(model, path)
    x = directory / f"layer{index}.npy"
    np.save(x, rng.standard_normal((1, cin, size, size)).astype(np.float32))
    return path, x


def ort_us(model: Path, x: Path, threads: int) -> float:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    feed = {"x": np.load(x)}
    for _ in range(5):
        session.run(None, feed)
    bursts = []
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.3:
            session.run(None, feed)
            calls += 1
        bursts.append((time.perf_counter() - start) / calls)
    return statistics.median(bursts) * 1e6


def ours_us(binary: str, model: Path, x: Path, threads: int, mode: str) -> float:
    text = subprocess.run([binary, "bench", str(model), "--input", f"x={x}", "--threads", str(threads), "--reps", "3",
                           "--target-seconds", "0.3", "--mode", mode], check=True, capture_output=True,
                          text=True).stdout
    for line in text.splitlines():
        if line.startswith("per call"):
            words = line.split()
            return float(words[words.index("ms") - 1]) * 1000.0
    raise RuntimeError(f"no 'per call' line from {binary} bench:\n{text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="build/rel/onemodel")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated prefixes of layer names (r18, sq, ...)")
    args = parser.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    rng = np.random.default_rng(0)
    print(f"ONNX Runtime {ort.__version__}, {args.threads} thread(s), us per call")
    print("| layer | ORT | fast | fast/ORT | exact | exact/fast |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, layer) in enumerate(LAYERS.items()):
            if prefixes and not any(name.startswith(p) for p in prefixes):
                continue
            model, x = write_layer(Path(tmp), index, layer, rng)
            theirs = ort_us(model, x, args.threads)
            fast = ours_us(args.binary, model, x, args.threads, "fast")
            exact = ours_us(args.binary, model, x, args.threads, "exact")
            print(f"| {name} | {theirs:.0f} | {fast:.0f} | {fast / theirs:.2f} | {exact:.0f} | {exact / fast:.2f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
