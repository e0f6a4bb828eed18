"""Reference inputs of the model zoo (issue 15; tools/oracles/export_zoo.py makes the models).

make_reference.py calls make_inputs() for the input kinds below, which the zoo adds to its own.
NumPy only (no torch), like make_reference.py. Every sample is drawn from the generator
make_reference.sample_rng(model, kind, index) gives, so batch 1 is sample 0 of batch N:

  * "image:HxW": standard normal [3, H, W] as "input" (the plain "image" kind is 224x224);
  * "text-ids-mask": as make_reference's "text" (ids in [1000, 30000), sequence 128, sample 0
    unpadded, the others padded after 64..128) without token_type_ids: input_ids, attention_mask;
  * "gpt2-step": one decoder step of GPT2_STEP's config: input_ids [B, NEW] in [0, vocab),
    past_key_values.<layer>.key/value [B, heads, PAST, head size] standard normal, attention_mask
    [B, PAST + NEW] of ones, but for samples after the first whose first 1..PAST/2 past positions
    are masked (left padding);
  * "audio:N": raw waveform [N] normal x 0.1 as input_values;
  * "features:TxF": a sequence [T, F] standard normal as "input" (batch first).
"""
import numpy as np

TEXT_SEQUENCE = 128

# The GPT-2 decoder step (export_zoo.py build_gpt2_past): two layers, past length 16, 4 new tokens.
GPT2_STEP = {"n_layer": 2, "n_head": 4, "n_embd": 128, "vocab_size": 1000, "n_positions": 64,
             "past": 16, "new": 4}


def gpt2_step_names() -> tuple[list[str], list[str]]:
    """Graph input names of the cache and output names of the new cache, layer by layer."""
    past, present = [], []
    for layer in range(GPT2_STEP["n_layer"]):
        for part in ("key", "value"):
            past.append(f"past_key_values.{layer}.{part}")
            present.append(f"present.{layer}.{part}")
    return past, present


def dims(spec: str, count: int) -> list[int]:
    """'128x128' -> [128, 128]; the kind strings are ours, but a typo should say where it is."""
    values = [int(v) for v in spec.split("x")]
    if len(values) != count or any(v <= 0 or v > 100000 for v in values):
        raise SystemExit(f"zoo_inputs: bad dimensions {spec!r} (want {count} positive numbers)")
    return values


def is_zoo_kind(kind: str) -> bool:
    return kind in ("text-ids-mask", "gpt2-step") or (
        ":" in kind and kind.split(":")[0] in ("image", "audio", "features"))


def text_ids_mask(name, batch, rng_for):
    ids, masks = [], []
    for i in range(batch):
        rng = rng_for(name, "text", i)
        row = rng.integers(1000, 30000, size=TEXT_SEQUENCE, dtype=np.int64)
        mask = np.ones(TEXT_SEQUENCE, dtype=np.int64)
        if i > 0:
            length = int(rng.integers(64, TEXT_SEQUENCE + 1))
            row[length:] = 0
            mask[length:] = 0
        ids.append(row)
        masks.append(mask)
    return {"input_ids": np.stack(ids), "attention_mask": np.stack(masks)}


def gpt2_step(name, batch, rng_for):
    c = GPT2_STEP
    head = c["n_embd"] // c["n_head"]
    rngs = [rng_for(name, "gpt2-step", i) for i in range(batch)]
    ids = np.stack([r.integers(0, c["vocab_size"], size=c["new"], dtype=np.int64) for r in rngs])
    past_names, _ = gpt2_step_names()
    cache = {n: np.stack([r.standard_normal((c["n_head"], c["past"], head), dtype=np.float32) for r in rngs])
             for n in past_names}
    mask = np.ones((batch, c["past"] + c["new"]), dtype=np.int64)
    for i in range(1, batch):
        mask[i, :int(rngs[i].integers(1, c["past"] // 2 + 1))] = 0
    return {"input_ids": ids, "attention_mask": mask, **cache}


def make_inputs(name: str, kind: str, batch: int, rng_for) -> dict:
    """The inputs of one zoo model; rng_for is make_reference.sample_rng."""
    if kind == "text-ids-mask":
        return text_ids_mask(name, batch, rng_for)
    if kind == "gpt2-step":
        return gpt2_step(name, batch, rng_for)
    family, _, spec = kind.partition(":")
    if family == "image":
        h, w = dims(spec, 2)
        return {"input": np.stack([rng_for(name, "image", i).standard_normal((3, h, w), dtype=np.float32)
                                   for i in range(batch)])}
    if family == "audio":
        (n,) = dims(spec, 1)
        return {"input_values": np.stack([rng_for(name, "audio", i).standard_normal(n, dtype=np.float32)
                                          * np.float32(0.1) for i in range(batch)])}
    if family == "features":
        t, f = dims(spec, 2)
        return {"input": np.stack([rng_for(name, "features", i).standard_normal((t, f), dtype=np.float32)
                                   for i in range(batch)])}
    raise SystemExit(f"zoo_inputs: unknown model kind {kind!r}")
