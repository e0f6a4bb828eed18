#!/usr/bin/env python3
"""Writes the reference inputs and ONNX Runtime's outputs (spec-source oracles.md "Reference outputs").

Run with the oracle environment:
    ~/onemodel/venvs/oracles/bin/python tools/oracles/make_reference.py [--models a,b] [--batches 1,8]
        [--variant fp32|fp16|int8]

For every model of tools/models.json and each of its batch sizes it writes
$ONEMODEL_HOME/reference/<os>-<arch>/<model>/fp32/b<batch>/ with inputs/*.npy, outputs/*.npy
(NumPy format 1.0, little-endian, C order) and index.json (dtypes, shapes, SHA-256 of each file,
the model's SHA-256, ONNX Runtime's version and session options). A model with a "reference_group"
in tools/models.json goes one level down, in <os>-<arch>/<group>/<model>/...: the control-flow
models (group "control-flow", issue 13) stay out of the */fp32/b* glob of check_models.sh (which
checks the optimized engine only) and are gated on their own by tools/oracles/check_control_flow.sh
(both engines).

Outputs are ONNX Runtime with ORT_ENABLE_ALL, sequential execution, one intra-op thread. Each
output also records ONNX Runtime's own noise: the scaled difference between its ORT_ENABLE_ALL and
ORT_DISABLE_ALL results (oracles.md "ONNX Runtime's own noise"), to put our errors in context.

--variant fp16 (oracles.md "float16 files") runs the model's float16 file (tools/models.json
variants.fp16, made by export_models.py --fp16) on the same inputs as the fp32 variant and writes
<model>/fp16/b<batch>/ in the same layout. The fp32 directory is made first (or reused when current):
the float16 gate compares against it (fp16.md "Accuracy against ONNX Runtime"), so fp16.json beside
index.json records the fp32 directory, that its inputs are byte-identical, and ONNX Runtime's own
float16-versus-float32 scaled error per output. (A separate file because the C++ index reader,
tools/refdata/ref_index.cpp, accepts only the keys listed in the index format.)

--variant int8 (oracles.md "int8 variants") does the same for the model's int8 file (tools/models.json
variants.int8, made by quantize_models.py): <model>/int8/b<batch>/, same inputs (but for the
static QDQ image models, whose inputs are drawn from their calibration distribution: see
INT8_IMAGE_INPUTS), ONNX Runtime's ORT_ENABLE_ALL output. Its model-level metric and noise floor are tools/oracles/check_int8.py's.

Inputs are seeded per sample from the SHA-256 of "<model>:<kind>:<sample index>" through PCG64, so
batch 1 is sample 0 of batch N on every machine:
  * image models: standard normal [3,224,224];
  * text encoders: token ids in [1000, 30000), sequence 128; sample 0 unpadded, the others padded
    (id 0, mask 0) after a random length in [64, 128]; token_type_ids zero;
  * Whisper encoder: normal mel [80, 3000] scaled by 0.5; decoder: 16 random token ids in
    [0, 50000) and a standard normal hidden state [1500, 768];
  * OCR detector: a synthetic page [3, 640, 640] (light noisy background, dark word-like blocks
    in rows) normalised as PP-OCR does ((x / 255 - 0.5) / 0.5); recogniser: the same for [3, 48, 320];
  * the control-flow models (tools/oracles/control_flow_models.py), batch 1 unless said:
    gpt2-loop ("prompt"): 12 token ids in [0, 512) as input_ids [1, 12];
    jit-if ("branch-image"): standard normal [4, 16, 16] plus 0.5 for even samples and minus 1.5 for
    odd ones, so batch 1 takes the If's then-branch (sum > 0) and batch 2 its else-branch;
    scan-rnn ("sequence"): per sample x [10, 8] standard normal (stacked on axis 1: [10, B, 8]) and
    h0 [16] standard normal scaled by 0.5;
    detect-loop ("boxes"): 48 boxes in clusters of 8 and uniform scores (control_flow_models.py
    detection_sample), so the Loop both suppresses boxes and stops early on the score threshold.
  * the model zoo (issue 15, reference group "zoo", tools/oracles/export_zoo.py) uses "image" and
    "text" above and the kinds of tools/oracles/zoo_inputs.py ("image:HxW", "text-ids-mask",
    "gpt2-step", "audio:N", "features:TxF"), drawn from the same per-sample generators.
"""
import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

import oracle_paths as paths
import zoo_inputs

TEXT_SEQUENCE = 128
# Bumped whenever the inputs above change, so cached reference directories are rewritten.
INPUTS_VERSION = 2


def sample_rng(model: str, kind: str, index: int) -> np.random.Generator:
    seed = int.from_bytes(hashlib.sha256(f"{model}:{kind}:{index}".encode()).digest(), "little")
    return np.random.Generator(np.random.PCG64(seed))


def image_sample(model, i, shape):
    return sample_rng(model, "image", i).standard_normal(shape, dtype=np.float32)


# The static int8 (QDQ) image models are calibrated on seeded synthetic fields (oracles.md "int8
# variants": a 7x7x3 normal field expanded 32x plus noise of 0.25, quantize_models.py
# calibration_images()). Their reference inputs are drawn from that distribution, with seeds of
# their own: on white-noise inputs the calibrated ranges do not fit (the random-weight ResNet-50's
# logits then take 9 distinct values and its decisions are argmax ties), which measures the
# calibration, not the runtime. Recorded in the index, so a directory made otherwise is rewritten.
INT8_IMAGE_INPUTS = "calibration-fields-1"


def calibration_field_sample(model, i):
    r = sample_rng(model, "int8-field", i)
    field = r.standard_normal((3, 7, 7), dtype=np.float32)
    expanded = np.repeat(np.repeat(field, 32, axis=1), 32, axis=2)
    return expanded + r.standard_normal((3, 224, 224), dtype=np.float32) * np.float32(0.25)


def int8_image_inputs(kind: str, variant: str) -> str | None:
    return INT8_IMAGE_INPUTS if (kind == "image" and variant == "int8") else None


def ocr_sample(model, i, shape):
    """A synthetic page: a light, slightly noisy background with rows of dark glyph-like strokes
    (each character cell gets a few random vertical, horizontal and diagonal bars), so the OCR
    networks see the kind of field they were trained on; solid blocks or pixel noise leave the
    detector's probability map at zero everywhere, which makes any error metric meaningless."""
    rng = sample_rng(model, "ocr", i)
    _, height, width = shape
    page = rng.uniform(215.0, 255.0, size=(height, width))
    glyph = max(12, min(32, height - 8))
    stroke = max(2, glyph // 8)
    top = int(rng.integers(2, max(3, glyph // 2)))
    while top + glyph <= height - 2:
        x = int(rng.integers(4, max(5, width // 10)))
        while x + glyph <= width - 4:
            ink = rng.uniform(0.0, 60.0)
            for _ in range(int(rng.integers(2, 5))):
                kind = int(rng.integers(0, 3))
                if kind == 0:
                    cx = x + int(rng.integers(0, glyph - stroke))
                    page[top:top + glyph, cx:cx + stroke] = ink
                elif kind == 1:
                    cy = top + int(rng.integers(0, glyph - stroke))
                    page[cy:cy + stroke, x:x + glyph * 3 // 4] = ink
                else:
                    for t in range(glyph):
                        cx = x + t * 3 // 4
                        page[top + t, cx:cx + stroke] = ink
            x += glyph * 3 // 4 + stroke * 2
            if rng.uniform() < 0.18:  # a space between words
                x += glyph
        top += glyph + int(rng.integers(glyph // 2, glyph * 2))
    pixels = np.repeat(page[None, :, :], 3, axis=0)
    return ((pixels / 255.0 - 0.5) / 0.5).astype(np.float32)


def text_sample(model, i):
    rng = sample_rng(model, "text", i)
    ids = rng.integers(1000, 30000, size=TEXT_SEQUENCE, dtype=np.int64)
    mask = np.ones(TEXT_SEQUENCE, dtype=np.int64)
    if i > 0:
        length = int(rng.integers(64, TEXT_SEQUENCE + 1))
        ids[length:] = 0
        mask[length:] = 0
    return ids, mask


def make_inputs(name: str, kind: str, batch: int, variant: str = "fp32") -> dict:
    if zoo_inputs.is_zoo_kind(kind):
        return zoo_inputs.make_inputs(name, kind, batch, sample_rng)
    if int8_image_inputs(kind, variant):
        return {"input": np.stack([calibration_field_sample(name, i) for i in range(batch)])}
    if kind == "image":
        return {"input": np.stack([image_sample(name, i, (3, 224, 224)) for i in range(batch)])}
    if kind == "text":
        pairs = [text_sample(name, i) for i in range(batch)]
        ids = np.stack([p[0] for p in pairs])
        return {"input_ids": ids, "attention_mask": np.stack([p[1] for p in pairs]),
                "token_type_ids": np.zeros_like(ids)}
    if kind == "whisper-encoder":
        return {"input_features": np.stack([
            (sample_rng(name, "mel", i).standard_normal((80, 3000), dtype=np.float32) * np.float32(0.5))
            for i in range(batch)])}
    if kind == "whisper-decoder":
        rngs = [sample_rng(name, "decoder", i) for i in range(batch)]
        ids = np.stack([r.integers(0, 50000, size=16, dtype=np.int64) for r in rngs])
        hidden = np.stack([r.standard_normal((1500, 768), dtype=np.float32) for r in rngs])
        return {"input_ids": ids, "encoder_hidden_states": hidden}
    if kind == "ocr-detector":
        return {"x": np.stack([ocr_sample(name, i, (3, 640, 640)) for i in range(batch)])}
    if kind == "ocr-recognizer":
        return {"x": np.stack([ocr_sample(name, i, (3, 48, 320)) for i in range(batch)])}
    if kind == "branch-image":
        return {"input": np.stack([sample_rng(name, kind, i).standard_normal((4, 16, 16), dtype=np.float32)
                                   + np.float32(0.5 if i % 2 == 0 else -1.5) for i in range(batch)])}
    if kind == "sequence":
        rngs = [sample_rng(name, kind, i) for i in range(batch)]
        x = np.stack([r.standard_normal((10, 8), dtype=np.float32) for r in rngs], axis=1)
        return {"x": x, "h0": np.stack([r.standard_normal(16, dtype=np.float32) * np.float32(0.5) for r in rngs])}
    if kind in ("prompt", "boxes"):
        if batch != 1:
            raise SystemExit(f"make_reference: {name}: kind {kind!r} has batch 1 only")
        rng = sample_rng(name, kind, 0)
        if kind == "prompt":
            return {"input_ids": rng.integers(0, 512, size=(1, 12), dtype=np.int64)}
        import control_flow_models
        boxes, scores = control_flow_models.detection_sample(rng, 48)
        return {"boxes": boxes, "scores": scores}
    raise SystemExit(f"make_reference: unknown model kind {kind!r}")


def session(model_path: Path, level) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def safe_file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "value"


def write_array(folder: Path, name: str, array: np.ndarray) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (safe_file_name(name) + ".npy")
    array = np.ascontiguousarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    np.save(path, array, allow_pickle=False)
    return {"name": name, "file": f"{folder.name}/{path.name}", "dtype": str(array.dtype),
            "shape": list(array.shape), "sha256": paths.sha256_file(path)}


def scaled_difference(a: np.ndarray, b: np.ndarray) -> float:
    if a.dtype.kind != "f":
        return 0.0 if np.array_equal(a, b) else float("inf")
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if b.size else 0.0
    return diff / scale if scale > 0 else diff


def is_current(index_path: Path, model_hash: str, image_inputs: str | None = None) -> bool:
    """A cached directory is reused when it was made from the same model file, inputs version and
    ONNX Runtime, and every file still has its recorded SHA-256."""
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
        if (index.get("model_sha256"), index.get("inputs_version"), index["onnxruntime"]["version"]) != (
                model_hash, INPUTS_VERSION, ort.__version__):
            return False
        if index.get("int8_image_inputs") != image_inputs:
            return False
        return all(paths.sha256_file(index_path.parent / f["file"]) == f["sha256"]
                   for f in index["inputs"] + index["outputs"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def variant_pin(name: str, entry: dict, variant: str) -> dict:
    """The manifest record of one file of a model: the entry itself for fp32, else variants.<v>."""
    if variant == "fp32":
        return entry
    pin = entry.get("variants", {}).get(variant)
    if pin is None:
        raise SystemExit(f"make_reference: {name} has no {variant} variant in tools/models.json "
                         f"(export_models.py --fp16 or quantize_models.py, with --update-pins, makes it)")
    return pin


def make_one(name: str, entry: dict, batch: int, force: bool = False, variant: str = "fp32") -> Path:
    pin = variant_pin(name, entry, variant)
    model_path = paths.models_dir() / pin["file"]
    if not model_path.exists():
        raise SystemExit(f"make_reference: {model_path} is missing; run export_models.py first")
    model_hash = paths.sha256_file(model_path)
    if pin.get("sha256") and model_hash != pin["sha256"]:
        print(f"make_reference: note: {name} {variant}: the cached model differs from its pin", file=sys.stderr)
    fp32_dir = make_one(name, entry, batch, False, "fp32") if variant == "fp16" else None
    out = paths.reference_dir() / entry.get("reference_group", "") / name / variant / f"b{batch}"
    image_inputs = int8_image_inputs(entry["kind"], variant)
    if not force and is_current(out / "index.json", model_hash, image_inputs) and (
            fp32_dir is None or fp16_record_current(out, fp32_dir)):
        print(f"make_reference: {name} {variant} b{batch}: cached {out} is current")
        return out
    inputs = make_inputs(name, entry["kind"], batch, variant)
    enabled = session(model_path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    input_names = [i.name for i in enabled.get_inputs()]
    if sorted(input_names) != sorted(inputs):
        raise SystemExit(f"make_reference: {name}: model inputs {input_names} are not {sorted(inputs)}")
    output_names = [o.name for o in enabled.get_outputs()]
    results = enabled.run(output_names, inputs)
    disabled = session(model_path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL).run(output_names, inputs)
    index = {
        "format": "onemodel-reference-1", "inputs_version": INPUTS_VERSION, "model": name, "variant": variant, "batch": batch,
        "model_file": str(model_path), "model_sha256": model_hash,
        "onnxruntime": {"version": ort.__version__, "graph_optimization_level": "ORT_ENABLE_ALL",
                        "execution_mode": "ORT_SEQUENTIAL", "intra_op_num_threads": 1,
                        "inter_op_num_threads": 1},
        "inputs": [write_array(out / "inputs", n, inputs[n]) for n in input_names],
        **({"int8_image_inputs": image_inputs} if image_inputs else {}),
        "outputs": [],
    }
    for n, value, plain in zip(output_names, results, disabled):
        record = write_array(out / "outputs", n, value)
        record["ort_noise_scaled"] = scaled_difference(value, plain)
        index["outputs"].append(record)
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    noise = ", ".join(f"{o['name']} {o['ort_noise_scaled']:.2e}" for o in index["outputs"])
    print(f"make_reference: {name} {variant} b{batch} -> {out} (ORT enabled vs disabled, scaled: {noise})", flush=True)
    if fp32_dir is not None:
        write_fp16_record(out, fp32_dir, index, dict(zip(output_names, results)), dict(zip(output_names, disabled)))
    return out


def write_fp16_record(out: Path, fp32_dir: Path, index: dict, results: dict, disabled: dict | None = None) -> None:
    """fp16.json: ONNX Runtime's float16-versus-float32 scaled error per output, the baseline of the
    second half of the gate (fp16.md: ours against the float32 output no worse than 1.5 times it).
    The same for ORT_DISABLE_ALL on the float16 file is recorded for context, not gated: ONNX
    Runtime's fusions change where it rounds to float16, so its two levels differ by as much as a
    second engine may."""
    fp32_index = json.loads((fp32_dir / "index.json").read_text(encoding="utf-8"))
    if [(i["name"], i["sha256"]) for i in fp32_index["inputs"]] != [(i["name"], i["sha256"]) for i in index["inputs"]]:
        raise SystemExit(f"make_reference: {out}: inputs differ from {fp32_dir}; the float32 comparison needs the same inputs")
    record = {"format": "onemodel-fp16-record-1", "fp32_reference": str(fp32_dir),
              "fp32_index_sha256": paths.sha256_file(fp32_dir / "index.json"),
              "inputs_equal_to_fp32": True, "outputs": {}}
    fp32_outputs = {o["name"]: o for o in fp32_index["outputs"]}
    for o in index["outputs"]:
        reference = np.load(fp32_dir / fp32_outputs[o["name"]]["file"], allow_pickle=False)
        record["outputs"][o["name"]] = {"ort_fp16_vs_fp32_scaled": scaled_difference(results[o["name"]], reference)}
        if disabled is not None:
            record["outputs"][o["name"]]["ort_fp16_disabled_vs_fp32_scaled"] = scaled_difference(
                disabled[o["name"]], reference)
    (out / "fp16.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    errors = ", ".join(f"{k} {v['ort_fp16_vs_fp32_scaled']:.2e} (ORT_DISABLE_ALL: "
                       f"{v.get('ort_fp16_disabled_vs_fp32_scaled', float('nan')):.2e})"
                       for k, v in record["outputs"].items())
    print(f"make_reference: {index['model']} fp16 b{index['batch']}: ORT fp16 vs ORT fp32, scaled: {errors}", flush=True)


def fp16_record_current(out: Path, fp32_dir: Path) -> bool:
    try:
        record = json.loads((out / "fp16.json").read_text(encoding="utf-8"))
        return (record["fp32_reference"] == str(fp32_dir)
                and record["fp32_index_sha256"] == paths.sha256_file(fp32_dir / "index.json"))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help="comma-separated names (default: every model)")
    parser.add_argument("--batches", default="", help="comma-separated batch sizes (default: the model's)")
    parser.add_argument("--force", action="store_true", help="rewrite directories that are current")
    parser.add_argument("--variant", default="fp32", choices=["fp32", "fp16", "int8"],
                        help="which file of each model: fp32 (default), its float16 or its int8 variant")
    args = parser.parse_args()
    manifest = paths.load_manifest()["models"]
    wanted = [m for m in args.models.split(",") if m] or [
        m for m in manifest if args.variant == "fp32" or args.variant in manifest[m].get("variants", {})]
    for name in wanted:
        if name not in manifest:
            raise SystemExit(f"make_reference: unknown model {name!r}")
        batches = [int(b) for b in args.batches.split(",") if b] or manifest[name]["batches"]
        for batch in batches:
            make_one(name, manifest[name], batch, args.force, args.variant)


if __name__ == "__main__":
    main()
