#!/usr/bin/env python3
"""Black-box check of RNN, GRU and LSTM against ONNX Runtime (spec/ops/recurrent.md).

Builds small models with the onnx helper covering bidirectional layers, sequence_lens (including a
row of length 0), initial states, peepholes, clip, linear_before_reset, input_forget, activation
lists with alpha/beta and layout 1, runs each with onnxruntime and with `onemodel run` (reference
engine, fast and exact mode), and compares every output elementwise with
|ours - ort| <= 1e-5 * |ort| + 1e-6 (relative 1e-5; the absolute floor only matters next to zero).

The ONNX Runtime CPU kernels refuse layout = 1 (spec-source ops-recurrent.md, "layout = 1"), so a
layout-1 case is checked against ORT's layout-0 result for the same data, transposed as ONNX
defines layout 1.

Usage: build/venv/bin/python tools/oracles/check_recurrent.py --onemodel build/<dir>/onemodel
Exit status 0 when every case matches.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

OPSET = 22
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def make_case(name, op, seq, batch, inp, hidden, rng, direction="forward", layout=0, with_b=True,
              seq_lens=None, initial_h=False, initial_c=False, peepholes=False, outputs=("Y", "Y_h", "Y_c"),
              **attrs):
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    data = {}
    data["X"] = rng.standard_normal((seq, batch, inp)).astype(np.float32)
    data["W"] = (0.5 * rng.standard_normal((dirs, g * hidden, inp))).astype(np.float32)
    data["R"] = (0.5 * rng.standard_normal((dirs, g * hidden, hidden))).astype(np.float32)
    if with_b:
        data["B"] = (0.3 * rng.standard_normal((dirs, 2 * g * hidden))).astype(np.float32)
    if seq_lens is not None:
        data["sequence_lens"] = np.array(seq_lens, dtype=np.int32)
    if initial_h:
        data["initial_h"] = rng.standard_normal((dirs, batch, hidden)).astype(np.float32)
    if op == "LSTM" and initial_c:
        data["initial_c"] = rng.standard_normal((dirs, batch, hidden)).astype(np.float32)
    if op == "LSTM" and peepholes:
        data["P"] = (0.5 * rng.standard_normal((dirs, 3 * hidden))).astype(np.float32)
    return dict(name=name, op=op, dirs=dirs, hidden=hidden, direction=direction, layout=layout, data=data,
                outputs=[o for o in outputs if op == "LSTM" or o != "Y_c"], attrs=attrs)


def input_order(op):
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    return names + (["initial_c", "P"] if op == "LSTM" else [])


def to_layout1(name, value):
    if name == "X":
        return np.ascontiguousarray(value.transpose(1, 0, 2))
    if name in ("initial_h", "initial_c", "Y_h", "Y_c"):
        return np.ascontiguousarray(value.transpose(1, 0, 2))
    if name == "Y":  # [seq, dirs, batch, H] -> [batch, seq, dirs, H]
        return np.ascontiguousarray(value.transpose(2, 0, 1, 3))
    return value


def build_model(case, layout):
    op = case["op"]
    data = case["data"]
    inputs, node_inputs = [], []
    for name in input_order(op):
        if name in data:
            value = to_layout1(name, data[name]) if layout == 1 else data[name]
            elem = TensorProto.INT32 if name == "sequence_lens" else TensorProto.FLOAT
            inputs.append(helper.make_tensor_value_info(name, elem, list(value.shape)))
            node_inputs.append(name)
        else:
            node_inputs.append("")
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    all_outputs = ["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"]
    node_outputs = [o if o in case["outputs"] else "" for o in all_outputs]
    while node_outputs and node_outputs[-1] == "":
        node_outputs.pop()
    attrs = dict(case["attrs"])
    attrs["hidden_size"] = case["hidden"]
    attrs["direction"] = case["direction"]
    if layout:
        attrs["layout"] = 1
    node = helper.make_node(op, node_inputs, node_outputs, **attrs)
    seq, batch = data["X"].shape[0], data["X"].shape[1]
    dirs, hidden = case["dirs"], case["hidden"]
    shapes = {"Y": [seq, dirs, batch, hidden], "Y_h": [dirs, batch, hidden], "Y_c": [dirs, batch, hidden]}
    if layout == 1:
        shapes = {"Y": [batch, seq, dirs, hidden], "Y_h": [batch, dirs, hidden], "Y_c": [batch, dirs, hidden]}
    outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, shapes[o]) for o in node_outputs if o]
    graph = helper.make_graph([node], case["name"], inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


def run_ort(case):
    model = build_model(case, 0)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {k: v for k, v in case["data"].items()}
    names = [o.name for o in session.get_outputs()]
    results = dict(zip(names, session.run(names, feeds)))
    if case["layout"] == 1:
        results = {k: to_layout1(k, v) for k, v in results.items()}
    return results


def run_onemodel(exe, case, mode, workdir):
    model = build_model(case, case["layout"])
    path = os.path.join(workdir, case["name"] + ".onnx")
    onnx.save(model, path)
    args = [exe, "run", path, "--engine", "reference", "--mode", mode]
    for name, value in case["data"].items():
        value = to_layout1(name, value) if case["layout"] == 1 else value
        file = os.path.join(workdir, f"{case['name']}_{name}.npy")
        np.save(file, value)
        args += ["--input", f"{name}={file}"]
    outdir = os.path.join(workdir, f"{case['name']}_{mode}")
    os.makedirs(outdir, exist_ok=True)
    args += ["--output-dir", outdir]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"onemodel run failed ({proc.returncode}): {proc.stderr.strip()}")
    return {o: np.load(os.path.join(outdir, o + ".npy")) for o in case["outputs"]}


def cases():
    rng = np.random.default_rng(20240611)
    return [
        make_case("rnn_bidir_seqlens_clip", "RNN", 4, 3, 2, 3, rng, direction="bidirectional", seq_lens=[4, 2, 0],
                  initial_h=True, clip=0.9),
        make_case("rnn_reverse_relu", "RNN", 3, 2, 3, 2, rng, direction="reverse", activations=["Relu"]),
        make_case("rnn_bidir_two_sets", "RNN", 3, 2, 2, 2, rng, direction="bidirectional",
                  activations=["LeakyRelu", "Affine"], activation_alpha=[0.2, 0.5], activation_beta=[0.1]),
        make_case("rnn_layout1_bidir", "RNN", 3, 2, 2, 3, rng, direction="bidirectional", layout=1, initial_h=True,
                  seq_lens=[3, 1]),
        make_case("gru_lbr1_bidir_seqlens", "GRU", 4, 3, 2, 3, rng, direction="bidirectional", seq_lens=[3, 4, 1],
                  initial_h=True, linear_before_reset=1),
        make_case("gru_lbr0_reverse_clip", "GRU", 3, 2, 3, 2, rng, direction="reverse", initial_h=True, clip=0.5),
        make_case("gru_lbr1_nobias", "GRU", 3, 2, 2, 2, rng, with_b=False, linear_before_reset=1),
        make_case("gru_layout1_lbr1", "GRU", 3, 2, 2, 2, rng, direction="bidirectional", layout=1, seq_lens=[2, 3],
                  initial_h=True, linear_before_reset=1),
        make_case("gru_activations", "GRU", 3, 2, 2, 2, rng, activations=["HardSigmoid", "Softsign"],
                  activation_alpha=[0.3], activation_beta=[0.45]),
        make_case("lstm_bidir_peep_seqlens_clip", "LSTM", 4, 3, 2, 3, rng, direction="bidirectional",
                  seq_lens=[4, 0, 2], initial_h=True, initial_c=True, peepholes=True, clip=1.1),
        make_case("lstm_reverse_peep", "LSTM", 3, 2, 3, 2, rng, direction="reverse", peepholes=True, initial_c=True),
        make_case("lstm_input_forget", "LSTM", 3, 2, 2, 2, rng, input_forget=1, peepholes=True),
        make_case("lstm_layout1_bidir_peep", "LSTM", 3, 2, 2, 2, rng, direction="bidirectional", layout=1,
                  seq_lens=[1, 3], initial_h=True, initial_c=True, peepholes=True),
        make_case("lstm_activation_params", "LSTM", 3, 2, 2, 2, rng, activations=["HardSigmoid", "LeakyRelu", "ScaledTanh"],
                  activation_alpha=[0.3, 0.2, 1.2], activation_beta=[0.4, 0.7]),
        make_case("lstm_elu_softplus", "LSTM", 3, 2, 2, 2, rng, activations=["Sigmoid", "Elu", "Softplus"],
                  activation_alpha=[0.8]),
        make_case("lstm_only_yc", "LSTM", 3, 2, 2, 2, rng, direction="bidirectional", outputs=("Y_c",)),
        make_case("lstm_thresholded", "LSTM", 3, 2, 2, 2, rng, activations=["Sigmoid", "ThresholdedRelu", "Tanh"],
                  activation_alpha=[0.1]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onemodel", required=True, help="path to the onemodel executable")
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as workdir:
        for case in cases():
            try:
                expected = run_ort(case)
            except Exception as error:  # ORT refusing a case is reported, not counted as a pass
                print(f"SKIP {case['name']}: onnxruntime refused: {error}")
                failures += 1
                continue
            for mode in ("fast", "exact"):
                try:
                    ours = run_onemodel(args.onemodel, case, mode, workdir)
                except RuntimeError as error:
                    print(f"FAIL {case['name']} {mode}: {error}")
                    failures += 1
                    continue
                worst, worst_abs, ok = 0.0, 0.0, True
                for name in case["outputs"]:
                    a, b = ours[name], expected[name]
                    if a.shape != b.shape:
                        print(f"FAIL {case['name']} {mode} {name}: shape {a.shape} vs {b.shape}")
                        ok = False
                        continue
                    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
                    bound = 1e-5 * np.abs(b.astype(np.float64)) + 1e-6
                    if not np.all(diff <= bound):
                        ok = False
                        print(f"FAIL {case['name']} {mode} {name}: max |diff| {diff.max():.3g}")
                    # Relative difference reported where |ort| >= 0.1 (below it the absolute floor decides).
                    rel = diff / np.maximum(np.abs(b.astype(np.float64)), 1e-30)
                    worst = max(worst, float(np.max(rel[np.abs(b) >= 0.1], initial=0.0)))
                    worst_abs = max(worst_abs, float(diff.max(initial=0.0)))
                if ok:
                    print(f"ok   {case['name']} {mode} (outputs {', '.join(case['outputs'])}; max relative diff {worst:.2e} where |ort| >= 0.1, max abs diff {worst_abs:.2e})")
                else:
                    failures += 1
    print("all cases match" if failures == 0 else f"{failures} case(s) failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
