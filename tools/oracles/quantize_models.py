#!/usr/bin/env python3
"""Makes the int8 variants of the reference models (spec-source oracles.md "int8 variants"; issue 14).

Run with the oracle environment (onnxruntime 1.31.1, whose onnxruntime.quantization is the tool):
    ~/onemodel/venvs/oracles/bin/python tools/oracles/quantize_models.py [--models a,b] [--update-pins] [--force]

From each cached float32 file in $ONEMODEL_HOME/models it writes <file>_int8.onnx beside it:
  * resnet50, mobilenetv3: quantize_static, QuantFormat.QDQ, per-channel int8 weights, int8
    activations, MinMax calibration over the 32 seeded synthetic images of calibration_images();
  * bert-base, minilm-l6, whisper-enc, whisper-dec: quantize_dynamic, per-channel int8 weights,
    activations quantized at run time (DynamicQuantizeLinear).
The pins are the model's variants.int8 entry in tools/models.json (file, the exact call, the float32
file's SHA-256 it was made from, SHA-256 and size), checked by verify_models.py. A cached file that
matches its pin is left alone, so a second run costs only the hashing (idempotent, as setup.sh wants).
--update-pins writes what was produced into tools/models.json.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import oracle_paths as paths

STATIC = ["resnet50", "mobilenetv3"]
DYNAMIC = ["bert-base", "minilm-l6", "whisper-enc", "whisper-dec"]
CALIBRATION_SEED = 20240  # the calibration field generator's seed (any fixed value; recorded in the pin)
CALIBRATION_COUNT = 32

# The exact calls, recorded in the pins ("made") so the files can be reproduced by hand.
STATIC_CALL = ("onnxruntime.quantization.quantize_static(fp32, int8, CalibrationImages(32), "
               "quant_format=QuantFormat.QDQ, per_channel=True, activation_type=QuantType.QInt8, "
               "weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax) "
               f"with tools/oracles/quantize_models.py calibration_images(seed={CALIBRATION_SEED}), one image per call")
DYNAMIC_CALL = ("onnxruntime.quantization.quantize_dynamic(fp32, int8, per_channel=True, "
                "weight_type=QuantType.QInt8)")


def calibration_images(count: int = CALIBRATION_COUNT, seed: int = CALIBRATION_SEED) -> np.ndarray:
    """oracles.md "int8 variants": seeded synthetic fields, a 7x7x3 normal field expanded 32x (to
    224x224) plus noise of 0.25. No licensed image set is fetched; these exercise the quantized
    kernels, they do not calibrate for accuracy. Shape [count, 3, 224, 224], float32."""
    rng = np.random.Generator(np.random.PCG64(seed))
    images = []
    for _ in range(count):
        field = rng.standard_normal((3, 7, 7), dtype=np.float32)
        expanded = np.repeat(np.repeat(field, 32, axis=1), 32, axis=2)
        noise = rng.standard_normal((3, 224, 224), dtype=np.float32) * np.float32(0.25)
        images.append(expanded + noise)
    return np.stack(images)


def int8_file_name(entry: dict) -> str:
    stem = entry["file"][:-len(".onnx")] if entry["file"].endswith(".onnx") else entry["file"]
    return f"{stem}_int8.onnx"


def quantize(name: str, source: Path, out_path: Path) -> str:
    """Writes out_path from source; returns the call recorded in the pin."""
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_dynamic, quantize_static)
    if name in STATIC:
        class CalibrationImages(CalibrationDataReader):
            def __init__(self, input_name):
                self.items = iter([{input_name: image[None]} for image in calibration_images()])

            def get_next(self):
                return next(self.items, None)

        import onnx
        input_name = onnx.load(str(source), load_external_data=False).graph.input[0].name
        # (The calibrator keeps its augmented model in a temporary directory of its own.)
        quantize_static(str(source), str(out_path), CalibrationImages(input_name),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax)
        return STATIC_CALL
    quantize_dynamic(str(source), str(out_path), per_channel=True, weight_type=QuantType.QInt8)
    return DYNAMIC_CALL


def stamp_record(source_digest: str, out_path: Path, out_digest: str | None = None) -> dict:
    import onnxruntime
    return {"source_sha256": source_digest, "onnxruntime": onnxruntime.__version__,
            "sha256": out_digest or paths.sha256_file(out_path)}


def read_stamp(stamp: Path) -> dict | None:
    try:
        return json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def make_int8(name: str, entry: dict, update_pins: bool, force: bool) -> bool:
    """Makes <file>_int8.onnx from the cached float32 file; True when it matches its pin."""
    source = paths.models_dir() / entry["file"]
    if not source.exists():
        raise SystemExit(f"quantize: {name}: {source} is missing; export the float32 file first")
    variant = entry.get("variants", {}).get("int8", {})
    out_path = paths.models_dir() / variant.get("file", int8_file_name(entry))
    if out_path.exists() and not force and out_path.stat().st_size == variant.get("size") \
            and paths.sha256_file(out_path) == variant.get("sha256"):
        print(f"quantize: {name} int8: cached {out_path} matches its pin")
        return True
    source_digest = paths.sha256_file(source)
    # A file made here from another float32 file than the pin's (oracles.md "Reproducibility across
    # machines": ResNet-50 and MobileNetV3) is not remade on every run: its stamp records what it
    # was made from.
    stamp = out_path.with_name(out_path.name + ".made.json")
    if out_path.exists() and not force and read_stamp(stamp) == stamp_record(source_digest, out_path):
        print(f"quantize: note: {name} int8: cached {out_path} differs from its pin but was made here from the "
              f"current float32 file (stamp {stamp.name})")
        return False
    if variant.get("source_sha256") and variant["source_sha256"] != source_digest:
        print(f"quantize: note: {name} int8: the float32 file {source.name} is not the one the pin was made "
              f"from ({variant['source_sha256'][:16]}...); the result will differ from the pin")
    print(f"quantize: {name} int8 -> {out_path}", flush=True)
    started = time.monotonic()
    call = quantize(name, source, out_path)
    digest, size = paths.sha256_file(out_path), out_path.stat().st_size
    stamp.write_text(json.dumps(stamp_record(source_digest, out_path, digest)) + "\n", encoding="utf-8")
    print(f"quantize: {name} int8: {size} bytes in {time.monotonic() - started:.0f} s", flush=True)
    matches = digest == variant.get("sha256")
    if not matches:
        print(f"quantize: note: {name} int8 SHA-256 {digest} (size {size}) differs from the pin {variant.get('sha256')}")
    if update_pins:
        import onnxruntime
        entry.setdefault("variants", {})["int8"] = {
            "file": out_path.name,
            "made": f"tools/oracles/quantize_models.py (onnxruntime {onnxruntime.__version__}) from the float32 file: {call}",
            "scheme": "static QDQ" if name in STATIC else "dynamic",
            "source_sha256": source_digest,
            "sha256": digest,
            "size": size,
        }
    return matches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help="comma-separated names (default: the six of oracles.md)")
    parser.add_argument("--update-pins", action="store_true", help="write produced hashes to tools/models.json")
    parser.add_argument("--force", action="store_true", help="quantize again even when the cached file matches")
    args = parser.parse_args()
    manifest = paths.load_manifest()
    wanted = [m for m in args.models.split(",") if m] or STATIC + DYNAMIC
    unknown = [m for m in wanted if m not in STATIC + DYNAMIC or m not in manifest["models"]]
    if unknown:
        raise SystemExit(f"quantize: no int8 variant for {unknown}; known: {STATIC + DYNAMIC}")
    differing = [n for n in wanted if not make_int8(n, manifest["models"][n], args.update_pins, args.force)]
    if args.update_pins:
        paths.save_manifest(manifest)
        print("quantize: int8 pins written to tools/models.json")
    elif differing:
        print(f"quantize: int8 files differ from their pins: {differing}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
