#!/usr/bin/env python3
"""A float32 emulation of fp16.md's half-precision adapter, run by ONNX Runtime: a diagnostic for the
float16 gate (tools/oracles/check_fp16.py), not a gate itself.

    ~/onemodel/venvs/oracles/bin/python tools/oracles/fp16_emulation.py [--models a,b] [--full]
        [--ours DIR]   # DIR: check_fp16.py --keep DIR (our dumped outputs)

Why: ONNX Runtime's CPU provider runs float16 files in float32 between Casts it inserts and
removes some of them (docs/reference-models.md, "Float16 files"), so it rounds to float16 less
often than the adapter of fp16.md ("Models stored in half precision": every wrapped node rounds
each output to the storage type). Its float16-versus-float32 error is therefore not the error a
correct engine following fp16.md has. This script rebuilds each float16 file as a float32 graph
that rounds exactly where the adapter rounds: every float16 tensor becomes a float32 tensor holding
float16 values (widening is exact), and every node output that is float16 in the file goes through
Cast(to=FLOAT16) -> Cast(to=FLOAT). ONNX Runtime runs it with ORT_DISABLE_ALL (no Cast elimination,
no fusion), one thread. An all-binary16 Add/Sub/Mul/Div, computed in binary16 by our engines, gives
the same bits as float32 arithmetic rounded once (a correctly rounded operation either way, fp16.md).

Printed per model, batch and output (scaled errors max|a - b| / max|b|):
  emu_vs_ort32   the emulated adapter against ONNX Runtime on the float32 file: what fp16.md's
                 rounding costs with ONNX Runtime's float32 kernels
  ort16_vs_ort32 ONNX Runtime on the float16 file, the gate's baseline (fp16.json)
  emu_vs_ort16   the emulated adapter against ONNX Runtime on the float16 file
  ours_vs_emu    (with --ours) each of our dumped sessions against the emulation
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import oracle_paths as paths

FLOAT, FLOAT16 = TensorProto.FLOAT, TensorProto.FLOAT16


def widen(tensor: onnx.TensorProto) -> onnx.TensorProto:
    return numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float32), tensor.name)


def emulate(model: onnx.ModelProto) -> onnx.ModelProto:
    """The float32 graph that rounds where fp16.md's adapter rounds (see the module comment)."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    elem = {v.name: v.type.tensor_type.elem_type for v in
            list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    for init in model.graph.initializer:
        elem[init.name] = init.data_type
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    inits = [widen(t) if t.data_type == FLOAT16 else t for t in graph.initializer]
    del graph.initializer[:]
    graph.initializer.extend(inits)
    taken = set(elem) | {n.name for n in graph.node}
    nodes = []
    for node in model.graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        if node.op_type == "Cast":
            to = next(a for a in copy.attribute if a.name == "to")
            if to.i == FLOAT16:
                # A narrowing: keep it and widen right after (the value is float16 in the file).
                wide = copy.output[0]
                copy.output[0] = wide + "__half"
                taken.add(copy.output[0])
                nodes.append(copy)
                nodes.append(helper.make_node("Cast", [copy.output[0]], [wide], to=FLOAT))
                continue
            nodes.append(copy)  # a Cast from float16 (now float32 holding float16 values) is exact
            continue
        for attr in copy.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == FLOAT16:
                attr.t.CopyFrom(widen(attr.t))
        rounded = []
        for i, name in enumerate(copy.output):
            if name and elem.get(name) == FLOAT16 and node.op_type not in ("Constant", "ConstantOfShape"):
                internal = name + "__wide"
                while internal in taken:
                    internal += "_"
                taken.add(internal)
                copy.output[i] = internal
                rounded.append((internal, name))
        nodes.append(copy)
        for internal, name in rounded:
            nodes.append(helper.make_node("Cast", [internal], [name + "__half"], to=FLOAT16))
            nodes.append(helper.make_node("Cast", [name + "__half"], [name], to=FLOAT))
            taken.add(name + "__half")
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.value_info[:]
    onnx.checker.check_model(out, full_check=True)
    return out


def scaled(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return float("inf")
    scale = float(np.max(np.abs(b.astype(np.float64)))) if b.size else 0.0
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if b.size else 0.0
    return diff / scale if scale > 0 else diff


def run(model: onnx.ModelProto, feeds: dict, names: list[str]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(names, feeds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="")
    parser.add_argument("--full", action="store_true", help="also the larger batches (default batch 1)")
    parser.add_argument("--ours", default="", help="check_fp16.py --keep DIR: compare our outputs too")
    parser.add_argument("--reference-root", default="")
    args = parser.parse_args()
    root = Path(args.reference_root) if args.reference_root else paths.reference_dir()
    wanted = [m for m in args.models.split(",") if m]
    emulated_models = {}
    print("model\tbatch\toutput\temu_vs_ort32\tort16_vs_ort32\temu_vs_ort16\tours_vs_emu", flush=True)
    for index_path in sorted(root.glob("*/fp16/b*/index.json"), key=lambda p: (int(p.parent.name[1:]), str(p))):
        refdir = index_path.parent
        index = json.loads(index_path.read_text(encoding="utf-8"))
        if (wanted and index["model"] not in wanted) or (not args.full and index["batch"] != 1):
            continue
        record = json.loads((refdir / "fp16.json").read_text(encoding="utf-8"))
        fp32_dir = Path(record["fp32_reference"])
        fp32_files = {o["name"]: o["file"] for o in json.loads((fp32_dir / "index.json").read_text())["outputs"]}
        if index["model_file"] not in emulated_models:
            emulated_models = {index["model_file"]: emulate(onnx.load(index["model_file"]))}  # one at a time
        feeds = {i["name"]: np.load(refdir / i["file"], allow_pickle=False) for i in index["inputs"]}
        names = [o["name"] for o in index["outputs"]]
        results = run(emulated_models[index["model_file"]], feeds, names)
        for o, emu in zip(index["outputs"], results):
            ref16 = np.load(refdir / o["file"], allow_pickle=False)
            ref32 = np.load(fp32_dir / fp32_files[o["name"]], allow_pickle=False)
            ours = []
            if args.ours:
                folder = Path(args.ours) / index["model"] / index["variant"] / f"b{index['batch']}"
                for session in sorted(folder.glob("*")):
                    file = session / Path(o["file"]).name
                    if file.exists():
                        ours.append(f"{session.name} {scaled(np.load(file), emu):.2e}")
            print(f"{index['model']}\t{index['batch']}\t{o['name']}\t{scaled(emu, ref32):.2e}\t"
                  f"{record['outputs'][o['name']]['ort_fp16_vs_fp32_scaled']:.2e}\t{scaled(emu, ref16):.2e}\t"
                  f"{'; '.join(ours) or '-'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
