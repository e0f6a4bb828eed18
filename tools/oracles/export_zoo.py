#!/usr/bin/env python3
"""Exports the model zoo (issue 15, "A zoo of the project's own"): float32 models of many families
beside the reference models, all in tools/models.json's reference group "zoo".

Run with the oracle environment:
    ~/onemodel/venvs/oracles/bin/python tools/oracles/export_zoo.py [--models a,b] [--update-pins] [--force]

The fixed choices are export_models.py's (oracles.md "Models"): TorchScript-based torch.onnx.export
(dynamo=False), opset 17, weights embedded, eval mode, dynamic batch (and sequence for the text
models and the decoder's cache), seeded random weights (model hubs are out of reach), batch-norm
running statistics measured on seeded random batches for the conv nets (export_models.py
calibrate_batch_norm, here at each model's input size). The caching and pin logic is
export_models.py's too: this script is export_models.py restricted to the zoo group, and
export_models.py with no --models (tools/oracles/setup.sh --models) exports the zoo as well
(source kind "zoo" in tools/models.json dispatches here).

Every export is checked once against PyTorch on inputs it was not traced with (make_reference's
inputs at batch 2: another batch, and for the text models another sequence length), so that a
traced-in constant (a batch size, a mask shortcut taken on the example) fails here instead of
making a wrong reference: scaled difference at most 1e-3 or the export stops.

Model-specific choices, all recorded in each model's "definition" in tools/models.json:
  * the classification heads that torchvision initialises to zero (VisionTransformer's heads.head)
    are re-drawn (normal, std 0.02), or every logit would be 0 and no error could be scaled;
  * the segmentation models return their "out" map only (no auxiliary head), 21 classes;
  * the GPT-2 step takes its key/value cache as graph inputs past_key_values.<layer>.key/value and
    returns logits [B, new, vocab] and present.<layer>.key/value; the attention mask is a graph
    input (left padding of the past is exercised by the reference inputs);
  * the LSTM and GRU stacks are torch.nn modules, batch first, returning the sequence and h_n.
"""
import argparse
import sys

import numpy as np

import export_models
import oracle_paths as paths
import zoo_inputs

GROUP = "zoo"


def batch_axes(*names, extra=None):
    axes = {n: {0: "batch"} for n in names}
    axes.update(extra or {})
    return axes


def has_batch_norm(model) -> bool:
    import torch
    return any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules())


def calibrate(model, generator, size):
    """export_models.calibrate_batch_norm at this model's image size: running statistics measured
    on 4 seeded batches of 8 standard-normal images (cumulative average), then eval mode."""
    import torch
    if not has_batch_norm(model):
        return model.eval()
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, size[0], size[1], generator=generator))
    return model.eval()


class Select:
    """Wraps a module whose result is a dict or a model output, keeping named fields."""

    @staticmethod
    def make(inner, fields, keyword=None):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, *args):
                out = self.inner(**{keyword: args[0]}) if keyword else self.inner(*args)
                picked = tuple(out[f] for f in fields)
                return picked[0] if len(picked) == 1 else picked

        return Wrapper().eval()


def vision(definition, size=(224, 224), fields=None):
    """A torchvision image model: seeded, batch-norm calibrated, one output."""

    def build(seed):
        import torch
        g = export_models.seeded(seed)
        model = calibrate(definition(), g, size)
        if fields:
            model = Select.make(model, fields)
        example = (torch.randn(1, 3, size[0], size[1], generator=g),)
        output = "out" if fields else "logits"
        return model, example, ["input"], [output], batch_axes("input", output)

    return build


def tv(name, **kwargs):
    def make():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kwargs)
    return make


def tv_segmentation(name, **kwargs):
    def make():
        import torchvision
        return getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None,
                                                              num_classes=21, **kwargs)
    return make


def vit_small():
    import torch
    import torchvision
    # ViT-S/16's shape (12 layers, width 384, 6 heads, MLP 1536) on torchvision's VisionTransformer.
    model = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=6,
                                                 hidden_dim=384, mlp_dim=1536)
    with torch.no_grad():  # torchvision zero-initialises the head (see the docstring)
        model.heads.head.weight.normal_(0.0, 0.02)
    return model


def build_deit_tiny(seed):
    import torch
    from transformers import DeiTConfig, DeiTModel
    g = export_models.seeded(seed)
    # facebook/deit-tiny-patch16-224's shape: 12 layers, width 192, 3 heads, MLP 768.
    config = DeiTConfig(hidden_size=192, num_hidden_layers=12, num_attention_heads=3, intermediate_size=768,
                        image_size=224, patch_size=16, attn_implementation="eager")
    model = Select.make(DeiTModel(config, add_pooling_layer=False).eval(), ["last_hidden_state"], "pixel_values")
    example = (torch.randn(1, 3, 224, 224, generator=g),)
    return model, example, ["input"], ["last_hidden_state"], batch_axes("input", "last_hidden_state")


TEXT2_AXES = {n: {0: "batch", 1: "sequence"} for n in ("input_ids", "attention_mask", "last_hidden_state")}


def text2_example():
    ids, mask, _ = export_models.text_example(30000)
    return ids, mask


def build_distilbert(seed):
    from transformers import DistilBertConfig, DistilBertModel
    export_models.seeded(seed)
    # distilbert-base-uncased's shape (the config's defaults): 6 layers, width 768, 12 heads.
    encoder = DistilBertModel(DistilBertConfig(attn_implementation="eager")).eval()
    model = Select.make(_TwoInputs.make(encoder), ["last_hidden_state"])
    return model, text2_example(), ["input_ids", "attention_mask"], ["last_hidden_state"], TEXT2_AXES


def build_t5_encoder(seed):
    from transformers import T5Config, T5EncoderModel
    export_models.seeded(seed)
    # t5-small's shape: 6 layers, d_model 512, 8 heads of 64, feed-forward 2048 (ReLU), 32 buckets.
    config = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8,
                      feed_forward_proj="relu", attn_implementation="eager")
    encoder = T5EncoderModel(config).eval()
    model = Select.make(_TwoInputs.make(encoder), ["last_hidden_state"])
    return model, text2_example(), ["input_ids", "attention_mask"], ["last_hidden_state"], TEXT2_AXES


def build_albert(seed):
    from transformers import AlbertConfig, AlbertModel
    export_models.seeded(seed)
    # albert-base-v2's shape: embedding 128, width 768, 12 (shared) layers, 12 heads, GELU.
    config = AlbertConfig(vocab_size=30000, embedding_size=128, hidden_size=768, num_hidden_layers=12,
                          num_attention_heads=12, intermediate_size=3072, hidden_act="gelu_new",
                          attn_implementation="eager")
    encoder = AlbertModel(config, add_pooling_layer=False).eval()
    return (export_models.LastHidden.make(encoder), export_models.text_example(30000), export_models.TEXT_INPUTS,
            ["last_hidden_state"], export_models.TEXT_AXES)


class _TwoInputs:
    @staticmethod
    def make(encoder):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = encoder

            def forward(self, input_ids, attention_mask):
                return self.encoder(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)

        return Wrapper().eval()


def build_gpt2_past(seed):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.cache_utils import DynamicCache
    export_models.seeded(seed)
    c = zoo_inputs.GPT2_STEP
    config = GPT2Config(n_layer=c["n_layer"], n_head=c["n_head"], n_embd=c["n_embd"], vocab_size=c["vocab_size"],
                        n_positions=c["n_positions"], bos_token_id=0, eos_token_id=0, attn_implementation="eager")
    lm = GPT2LMHeadModel(config).eval()
    past_names, present_names = zoo_inputs.gpt2_step_names()

    class Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids, attention_mask, *past):
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(len(past) // 2)])
            past_length = past[0].shape[2]
            positions = (torch.arange(input_ids.shape[1]) + past_length).unsqueeze(0)
            out = self.lm(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache,
                          position_ids=positions, use_cache=True, return_dict=True)
            present = []
            for layer in out.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (out.logits, *present)

    # Traced on batch 2 with a left-padded second row, so no all-ones shortcut of the mask
    # builder is taken (the check against PyTorch below runs other inputs too).
    g = torch.Generator().manual_seed(seed)
    head = c["n_embd"] // c["n_head"]
    ids = torch.randint(0, c["vocab_size"], (2, c["new"]), generator=g)
    mask = torch.ones(2, c["past"] + c["new"], dtype=torch.int64)
    mask[1, :3] = 0
    past = tuple(torch.randn(2, c["n_head"], c["past"], head, generator=g) for _ in past_names)
    axes = {"input_ids": {0: "batch", 1: "new"}, "attention_mask": {0: "batch", 1: "total"},
            "logits": {0: "batch", 1: "new"},
            **{n: {0: "batch", 2: "past"} for n in past_names}, **{n: {0: "batch", 2: "total"} for n in present_names}}
    return Step().eval(), (ids, mask, *past), ["input_ids", "attention_mask"] + past_names, \
        ["logits"] + present_names, axes


def build_wav2vec2(seed):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    g = export_models.seeded(seed)
    # A small wav2vec2: the base model's convolutional front end (7 layers, kernels 10,3,3,3,3,2,2,
    # strides 5,2,2,2,2,2,2, group norm on the first) at 256 channels, then 4 layers of width 256
    # with 4 heads and the weight-normed convolutional position embedding (kernel 128, 16 groups).
    config = Wav2Vec2Config(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024,
                            conv_dim=(256,) * 7, attn_implementation="eager")
    model = Select.make(Wav2Vec2Model(config).eval(), ["last_hidden_state"], "input_values")
    example = (torch.randn(1, 16000, generator=g) * 0.1,)
    return model, example, ["input_values"], ["last_hidden_state"], batch_axes("input_values", "last_hidden_state")


def recurrent(cell, **kwargs):
    def build(seed):
        import torch
        g = export_models.seeded(seed)
        rnn = getattr(torch.nn, cell)(input_size=64, hidden_size=128, num_layers=2, batch_first=True, **kwargs)

        class Stack(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = rnn

            def forward(self, x):
                out, state = self.rnn(x)
                return out, (state[0] if isinstance(state, tuple) else state)

        example = (torch.randn(2, 32, 64, generator=g),)
        return Stack().eval(), example, ["input"], ["output", "h_n"], batch_axes(
            "input", "output", extra={"h_n": {1: "batch"}})

    return build


BUILDERS = {
    "resnet18": vision(tv("resnet18")),
    "resnext50": vision(tv("resnext50_32x4d")),
    "vgg11-bn": vision(tv("vgg11_bn")),
    "regnet-y-400mf": vision(tv("regnet_y_400mf")),
    "googlenet": vision(tv("googlenet", aux_logits=False, init_weights=True)),
    "shufflenet-v2": vision(tv("shufflenet_v2_x1_0")),
    "mnasnet": vision(tv("mnasnet1_0")),
    "densenet121": vision(tv("densenet121")),
    "squeezenet": vision(tv("squeezenet1_1")),
    "efficientnet-b0": vision(tv("efficientnet_b0")),
    "convnext-t": vision(tv("convnext_tiny")),
    "deeplabv3-mbv3": vision(tv_segmentation("deeplabv3_mobilenet_v3_large", aux_loss=False), fields=["out"]),
    "lraspp-mbv3": vision(tv_segmentation("lraspp_mobilenet_v3_large"), fields=["out"]),
    "fcn-resnet50": vision(tv_segmentation("fcn_resnet50", aux_loss=False), size=(128, 128), fields=["out"]),
    "vit-s16": vision(vit_small),
    "deit-tiny": build_deit_tiny,
    "swin-t": vision(tv("swin_t")),
    "distilbert": build_distilbert,
    "albert-base": build_albert,
    "t5-small-enc": build_t5_encoder,
    "gpt2-past": build_gpt2_past,
    "wav2vec2-small": build_wav2vec2,
    "lstm-bi": recurrent("LSTM", bidirectional=True),
    "gru": recurrent("GRU"),
}


def scaled(a, b) -> float:
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if b.size else 0.0
    return diff / scale if scale > 0 else diff


def check_against_torch(name, entry, model, out_path, input_names, output_names):
    """The export against PyTorch on make_reference's batch-2 inputs (see the docstring)."""
    import onnxruntime as ort
    import torch
    import make_reference
    inputs = make_reference.make_inputs(name, entry["kind"], 2)
    with torch.no_grad():
        got = model(*[torch.from_numpy(inputs[n]) for n in input_names])
    got = got if isinstance(got, tuple) else (got,)
    onnx_out = ort.InferenceSession(str(out_path), providers=["CPUExecutionProvider"]).run(output_names, inputs)
    worst = max(scaled(o, t.numpy()) for o, t in zip(onnx_out, got))
    print(f"export_zoo: {name}: ONNX Runtime vs PyTorch on batch-2 reference inputs, scaled {worst:.2e}", flush=True)
    if not worst <= 1e-3:
        raise SystemExit(f"export_zoo: {name}: the export differs from PyTorch (scaled {worst:.2e}); a traced-in "
                         f"constant? Not kept.")


def build(name: str, entry: dict, out_path) -> None:
    """Called by export_models.py for source kind "zoo": export, then the check against PyTorch."""
    if name not in BUILDERS:
        raise SystemExit(f"export_zoo: no builder for {name!r}; known: {list(BUILDERS)}")
    import torch
    built = BUILDERS[name](entry["source"]["seed"])
    # nn.MultiheadAttention's eval-mode fast path (aten::_native_multi_head_attention, used by
    # torchvision's ViT) has no ONNX export; the plain path computes the same attention.
    torch.backends.mha.set_fastpath_enabled(False)
    export_models.export_module(built, out_path)
    model, _, input_names, output_names, _ = built
    try:
        check_against_torch(name, entry, model, out_path, input_names, output_names)
    except SystemExit:
        out_path.unlink()
        raise


def zoo_names(manifest: dict) -> list[str]:
    return [n for n, e in manifest["models"].items() if e.get("reference_group") == GROUP]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help="comma-separated names (default: the whole zoo)")
    parser.add_argument("--update-pins", action="store_true", help="write produced hashes to tools/models.json")
    parser.add_argument("--force", action="store_true", help="re-export even when the cached file matches")
    args = parser.parse_args()
    manifest = paths.load_manifest()
    zoo = zoo_names(manifest)
    wanted = [m for m in args.models.split(",") if m] or zoo
    outside = [m for m in wanted if m not in zoo]
    if outside:
        raise SystemExit(f"export_zoo: not in the zoo group: {outside}; known: {zoo}")
    export_models.export_float32(manifest, wanted, args.update_pins, args.force)


if __name__ == "__main__":
    sys.exit(main())
