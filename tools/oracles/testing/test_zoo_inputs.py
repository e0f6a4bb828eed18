#!/usr/bin/env python3
"""Checks of the model zoo's reference inputs (tools/oracles/zoo_inputs.py, as make_reference.py
calls it; docs/reference-models.md "Model zoo (issue 15)"): for every zoo model of
tools/models.json, batch 1 is sample 0 of the model's batch N (make_reference.py's rule), and the
shapes, dtypes and value ranges are the documented ones (written out below, not taken from the code
under test). Needs numpy and onnxruntime (make_reference imports it); prints
"test_zoo_inputs: PASS" (CTest: zoo_inputs_tools).

    python3 tools/oracles/testing/test_zoo_inputs.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import make_reference  # noqa: E402
import oracle_paths as paths  # noqa: E402
import zoo_inputs  # noqa: E402

import numpy as np  # noqa: E402

failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


# The documented inputs per kind at batch N: name -> (shape, dtype).
def documented(kind, n):
    if kind == "image":
        return {"input": ([n, 3, 224, 224], "float32")}
    if kind == "image:128x128":
        return {"input": ([n, 3, 128, 128], "float32")}
    if kind == "text":
        return {k: ([n, 128], "int64") for k in ("input_ids", "attention_mask", "token_type_ids")}
    if kind == "text-ids-mask":
        return {k: ([n, 128], "int64") for k in ("input_ids", "attention_mask")}
    if kind == "gpt2-step":
        cache = {f"past_key_values.{layer}.{part}": ([n, 4, 16, 32], "float32")
                 for layer in range(2) for part in ("key", "value")}
        return {"input_ids": ([n, 4], "int64"), "attention_mask": ([n, 20], "int64"), **cache}
    if kind == "audio:16000":
        return {"input_values": ([n, 16000], "float32")}
    if kind == "features:32x64":
        return {"input": ([n, 32, 64], "float32")}
    raise AssertionError(f"no documented inputs for kind {kind!r}")


def test_every_zoo_model():
    manifest = paths.load_manifest()["models"]
    zoo = {n: e for n, e in manifest.items() if e.get("reference_group") == "zoo"}
    check(f"the zoo has at least 20 models (has {len(zoo)})", len(zoo) >= 20)
    for name, entry in zoo.items():
        n = max(entry["batches"])
        check(f"{name}: batches are 1 and a larger one", entry["batches"][0] == 1 and n in (4, 8))
        one = make_reference.make_inputs(name, entry["kind"], 1)
        many = make_reference.make_inputs(name, entry["kind"], n)
        want = documented(entry["kind"], n)
        check(f"{name}: input names {sorted(many)} are {sorted(want)}", sorted(many) == sorted(want))
        for key, (shape, dtype) in want.items():
            if key not in many or key not in one:
                continue
            check(f"{name}.{key}: shape {list(many[key].shape)} is {shape}", list(many[key].shape) == shape)
            check(f"{name}.{key}: dtype {many[key].dtype} is {dtype}", str(many[key].dtype) == dtype)
            check(f"{name}.{key}: batch 1 is sample 0 of batch {n}", np.array_equal(one[key], many[key][:1]))
            if key != "token_type_ids":  # all zero by definition
                check(f"{name}.{key}: samples differ", not np.array_equal(many[key][0], many[key][1]))


def test_gpt2_step_mask():
    inputs = make_reference.make_inputs("gpt2-past", "gpt2-step", 8)
    ids, mask = inputs["input_ids"], inputs["attention_mask"]
    check("gpt2-step: ids in [0, 1000)", ids.min() >= 0 and ids.max() < 1000)
    check("gpt2-step: sample 0 unmasked", bool(mask[0].all()))
    for i in range(1, 8):
        zeros = int((mask[i] == 0).sum())
        # Left padding of the past only: 1..8 leading zeros, then ones (the 4 new tokens included).
        check(f"gpt2-step: sample {i} has 1..8 masked past positions ({zeros})", 1 <= zeros <= 8)
        check(f"gpt2-step: sample {i} masks a prefix", bool((mask[i, :zeros] == 0).all() and mask[i, zeros:].all()))


def test_text_padding():
    inputs = make_reference.make_inputs("distilbert", "text-ids-mask", 4)
    ids, mask = inputs["input_ids"], inputs["attention_mask"]
    check("text-ids-mask: sample 0 unpadded", bool(mask[0].all()))
    for i in range(1, 4):
        length = int(mask[i].sum())
        check(f"text-ids-mask: sample {i} length {length} in [64, 128]", 64 <= length <= 128)
        check(f"text-ids-mask: sample {i} padding is id 0", bool((ids[i, length:] == 0).all()))
        check(f"text-ids-mask: sample {i} ids in [1000, 30000)",
              bool(((ids[i, :length] >= 1000) & (ids[i, :length] < 30000)).all()))


def test_kinds():
    # make_reference's own kinds stay its own; the zoo's need their dimensions.
    for kind in ("image", "text", "whisper-encoder", "prompt"):
        check(f"{kind!r} is not a zoo kind", not zoo_inputs.is_zoo_kind(kind))
    for kind in ("image:128x128", "audio:16000", "features:32x64", "text-ids-mask", "gpt2-step"):
        check(f"{kind!r} is a zoo kind", zoo_inputs.is_zoo_kind(kind))
    for bad in ("0x5", "12", "3x-1", "1x2x3"):
        try:
            zoo_inputs.dims(bad, 2)
            failures.append(f"dims({bad!r}, 2) was accepted")
        except SystemExit:
            pass


def main():
    test_every_zoo_model()
    test_gpt2_step_mask()
    test_text_padding()
    test_kinds()
    if failures:
        print("\n".join(f"test_zoo_inputs: FAIL {f}" for f in failures))
        return 1
    print("test_zoo_inputs: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
