#!/usr/bin/env python3
"""How far float32 evaluations of a zoo model are from the same model in float64 (issue 15; the
fcn-resnet50 paragraph of docs/reference-models.md "Model zoo (issue 15)").

When a model fails the 1e-4 gate by a little, this tells conditioning from an engine error: the
model is rebuilt from its seed (tools/oracles/export_zoo.py), converted to float64 in PyTorch and
run on the batch-1 reference inputs; then ONNX Runtime at both optimisation levels and any dumps of
ours (`onemodel check DIR --dump DUMPDIR`) are compared with it, scaled as the gate scales
(max |x - float64| / max |float64|). Run with the oracle environment:

    ~/onemodel/venvs/oracles/bin/python tools/oracles/zoo_float64_distance.py MODEL [DUMPDIR]
"""
import argparse
import json
from pathlib import Path

import numpy as np
import onnxruntime as ort

import export_zoo
import oracle_paths as paths


def ort_outputs(model_path: Path, level, names, inputs):
    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"]).run(names, inputs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a zoo model of tools/models.json")
    parser.add_argument("dump", nargs="?", default="", help="an `onemodel check --dump` directory")
    args = parser.parse_args()
    entry = paths.load_manifest()["models"].get(args.model)
    if entry is None or entry.get("reference_group") != export_zoo.GROUP:
        raise SystemExit(f"zoo_float64_distance: {args.model!r} is not a zoo model")
    reference = paths.reference_dir() / export_zoo.GROUP / args.model / "fp32" / "b1"
    index = json.loads((reference / "index.json").read_text(encoding="utf-8"))
    inputs = {i["name"]: np.load(reference / i["file"], allow_pickle=False) for i in index["inputs"]}

    import torch
    torch.backends.mha.set_fastpath_enabled(False)
    model, _, input_names, output_names, _ = export_zoo.BUILDERS[args.model](entry["source"]["seed"])
    model = model.double()
    as_torch = [torch.from_numpy(inputs[n]).double() if inputs[n].dtype == np.float32 else torch.from_numpy(inputs[n])
                for n in input_names]
    with torch.no_grad():
        truth = model(*as_torch)
    truth = truth if isinstance(truth, tuple) else (truth,)

    model_path = paths.models_dir() / entry["file"]
    candidates = {
        "ORT_ENABLE_ALL": ort_outputs(model_path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL, output_names, inputs),
        "ORT_DISABLE_ALL": ort_outputs(model_path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL, output_names, inputs),
    }
    dump = Path(args.dump) / args.model / "fp32" / "b1" if args.dump else None
    if dump is not None and dump.is_dir():
        for run in sorted(p for p in dump.iterdir() if p.is_dir()):
            files = [run / f"{n}.npy" for n in output_names]
            if all(f.exists() for f in files):
                candidates[f"ours {run.name}"] = [np.load(f, allow_pickle=False) for f in files]
    for k, name in enumerate(output_names):
        exact = truth[k].numpy().astype(np.float64)
        scale = float(np.max(np.abs(exact)))
        distances = ", ".join(
            f"{label} {float(np.max(np.abs(values[k].astype(np.float64) - exact))) / scale:.2e}"
            for label, values in candidates.items())
        print(f"{args.model} {name}: max |float64| {scale:.3e}; scaled distance from float64: {distances}")


if __name__ == "__main__":
    main()
