#!/usr/bin/env python3
"""Builds the control-flow reference models (issue 13 "Oracles"; spec-source oracles.md "Models").

Run with the oracle environment:
    ~/onemodel/venvs/oracles/bin/python tools/oracles/control_flow_models.py [--models gpt2-loop,...]
        [--out-dir DIR]

export_models.py calls build() for every tools/models.json entry whose source kind is "script"
(so tools/setup.sh --oracles makes them on a fresh machine and --update-pins pins them); run alone,
this script writes the files into $ONEMODEL_HOME/models (or --out-dir) and compares each with its
pin. The seeds come from tools/models.json (source.seed).

Why: the reference models of reference-models.md have no If, Loop or Scan; these four do, in real
shapes, so the engine's control flow is checked end to end against ONNX Runtime 1.31.1.

  * gpt2-loop: greedy decoding around a tiny seeded GPT-2 (transformers GPT2LMHeadModel, 2 layers,
    4 heads, width 64, vocabulary 512, 128 positions, untied head, init std 0.1, eager attention)
    with its key/value cache.
    One step with past keys/values and the cache-less prefill are exported with torch.onnx.export
    (dynamo=False, opset 17), then composed: prefill on input_ids [1,T], ArgMax, and a Loop of
    NEW_TOKENS - 1 iterations (trip count initializer, cond omitted) whose body is the step graph
    on the carried token, with the four cache tensors as loop-carried values that grow by one
    position per iteration; the body captures the outer weights. Outputs output_ids [1,16] (the
    generated tokens) and logits [1,512] (the last step's). Checked against a plain torch greedy
    loop on the same weights.
  * jit-if: a torch.jit.script module whose forward branches on x.sum() > 0 (then: 3x3 conv, ReLU,
    3x3 conv; else: 1x1 conv, Sigmoid, a Linear over channels), followed by a shared 1x1 conv;
    TorchScript export gives one If with both branches non-trivial. Checked on both branches.
  * scan-rnn: Scan (opset 17) over x [T,B,8] with state h0 [B,16]: h' = Tanh(x_t W + h R + b); W, R, b
    are outer-graph initializers captured by the body. Outputs h_final [B,16] and h_all [T,B,16].
    Checked against NumPy.
  * detect-loop: greedy box suppression. TopK sorts the boxes by score; a Loop over the N boxes
    (trip count Gather(Shape(boxes), 0)) keeps box i when its score > 0.3 and its IoU with every
    kept box <= 0.5, the kept set growing through an If whose then-branch Concats the row; the body
    returns cond = (score > 0.3), so the loop stops at the first box under the threshold. The kept
    set starts as an empty [0,4] tensor. Outputs kept_boxes [K,4], kept_scores [K]. Checked against
    a NumPy loop.

Only operators of spec/operators.tsv are used, plus If, Loop and Scan (no Compress, no
NonMaxSuppression). Every file is deterministic: seeded weights, fixed names, no timestamps.
"""
import argparse
import tempfile
from pathlib import Path

import numpy as np

import oracle_paths as paths

OPSET = 17
NEW_TOKENS = 16
# Untied output head and weights of std 0.1: with the default tied head and std 0.02 the tiny model's
# greedy choice is mostly its input token again, which would not tell a wrong carried token apart.
GPT2 = dict(n_layer=2, n_head=4, n_embd=64, vocab_size=512, n_positions=128, tie_word_embeddings=False,
            initializer_range=0.1)
SCORE_THRESHOLD = 0.3
IOU_THRESHOLD = 0.5
RNN_INPUT, RNN_HIDDEN = 8, 16
PRODUCER = "onemodel tools/oracles/control_flow_models.py"


def session(model):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def operators(graph, found=None) -> set:
    """Op types of a graph and of every subgraph inside it."""
    found = set() if found is None else found
    for node in graph.node:
        found.add(node.op_type)
        for attribute in node.attribute:
            for sub in list(attribute.graphs) + ([attribute.g] if attribute.HasField("g") else []):
                operators(sub, found)
    return found


def finish(graph, doc):
    """Wraps a graph into an opset-17 model and checks it strictly."""
    import onnx
    from onnx import helper
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=PRODUCER, doc_string=doc)
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


# ---------------------------------------------------------------- gpt2-loop

def gpt2_model(seed):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(seed)
    config = GPT2Config(**GPT2, bos_token_id=0, eos_token_id=0, attn_implementation="eager")
    return GPT2LMHeadModel(config).eval()


def gpt2_step_module(model):
    """One decoder step on plain tensors: (input_ids [1,S], past k/v of each layer [1,heads,P,64/heads])
    -> (logits of the last position [1,vocab], present k/v [1,heads,P+S,...]). Position ids and an
    all-ones mask are passed explicitly, computed from the past length."""
    import torch
    from transformers.cache_utils import DynamicCache
    layers = model.config.n_layer

    class Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, *past):
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(layers)]) if past else None
            past_length = past[0].shape[2] if past else 0
            length = input_ids.shape[1]
            mask = torch.ones(1, past_length + length, dtype=torch.int64)
            positions = (torch.arange(length) + past_length).unsqueeze(0)
            out = self.model(input_ids=input_ids, past_key_values=cache, attention_mask=mask,
                             position_ids=positions, use_cache=True, return_dict=True)
            present = []
            for layer in out.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (out.logits[:, -1, :], *present)

    return Step().eval()


def export_graph(module, example, input_names, output_names, axes):
    import onnx
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "part.onnx"
        with torch.no_grad():
            torch.onnx.export(module, example, str(path), dynamo=False, opset_version=OPSET,
                              input_names=input_names, output_names=output_names, dynamic_axes=axes,
                              do_constant_folding=True, export_params=True)
        return onnx.load(str(path))


def renamed(graph, prefix, keep):
    """A copy of a subgraph-free graph with every value name X renamed to keep[X] or prefix + X,
    node names prefixed too."""
    import onnx
    out = onnx.GraphProto()
    out.CopyFrom(graph)
    name = lambda v: v if v == "" else keep.get(v, prefix + v)
    for node in out.node:
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            raise SystemExit("control_flow_models: the exported step graph unexpectedly has a subgraph")
        node.name = prefix + (node.name or node.op_type)
        node.input[:] = [name(v) for v in node.input]
        node.output[:] = [name(v) for v in node.output]
    for collection in (out.input, out.output, out.value_info, out.initializer):
        for item in collection:
            item.name = name(item.name)
    return out


def tensor_key(tensor):
    import onnx
    copy = onnx.TensorProto()
    copy.CopyFrom(tensor)
    copy.name = ""
    return copy.SerializeToString()


def torch_greedy(model, prompt, count):
    """The plain greedy loop the composed graph must reproduce: token ids [1,count] and the logits
    of the last step."""
    import torch
    with torch.no_grad():
        out = model(input_ids=prompt, use_cache=True, return_dict=True)
        tokens = [out.logits[:, -1, :].argmax(-1, keepdim=True)]
        for _ in range(count - 1):
            out = model(input_ids=tokens[-1], past_key_values=out.past_key_values, use_cache=True, return_dict=True)
            tokens.append(out.logits[:, -1, :].argmax(-1, keepdim=True))
    return torch.cat(tokens, dim=1).numpy(), out.logits[:, -1, :].numpy()


def build_gpt2_loop(seed):
    import torch
    from onnx import TensorProto, helper, numpy_helper
    model = gpt2_model(seed)
    layers, heads = model.config.n_layer, model.config.n_head
    head_size = model.config.n_embd // heads
    vocab = model.config.vocab_size
    step = gpt2_step_module(model)
    cache_names = [f"{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    present = [f"present_{c}" for c in cache_names]
    generator = torch.Generator().manual_seed(seed)
    prompt = torch.randint(0, vocab, (1, 8), generator=generator)
    with torch.no_grad():
        example_past = step(prompt)[1:]
    prefill = export_graph(step, (prompt,), ["input_ids"], ["logits"] + present,
                           {"input_ids": {1: "sequence"}, **{p: {2: "total"} for p in present}})
    past = [f"past_{c}" for c in cache_names]
    stepped = export_graph(step, (prompt[:, -1:], *example_past), ["input_ids"] + past, ["logits"] + present,
                           {"input_ids": {1: "sequence"}, **{p: {2: "past"} for p in past},
                            **{p: {2: "total"} for p in present}})

    # Outer graph: the prefill with its weights; the body reuses them by name (outer-scope captures)
    # and brings in any initializer the prefill lacks.
    outer = renamed(prefill.graph, "prefill/", {"input_ids": "input_ids"})
    by_content = {tensor_key(t): t.name for t in outer.initializer}
    body_graph = renamed(stepped.graph, "step/", {"input_ids": "token_in", "logits": "logits_out",
                                                  **{p: p + "_in" for p in past},
                                                  **{p: p + "_out" for p in present}})
    captured, extra = {}, []
    for t in body_graph.initializer:
        key = tensor_key(t)
        if key in by_content:
            captured[t.name] = by_content[key]
        else:
            extra.append(t)
            by_content[key] = t.name
    for node in body_graph.node:
        node.input[:] = [captured.get(v, v) for v in node.input]

    cache_shape = lambda axis: [1, heads, axis, head_size]
    body_inputs = [helper.make_tensor_value_info("iteration", TensorProto.INT64, []),
                   helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                   helper.make_tensor_value_info("token_in", TensorProto.INT64, [1, 1]),
                   helper.make_tensor_value_info("logits_in", TensorProto.FLOAT, [1, vocab])]
    body_inputs += [helper.make_tensor_value_info(p + "_in", TensorProto.FLOAT, cache_shape("past")) for p in past]
    body_outputs = [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                    helper.make_tensor_value_info("token_out", TensorProto.INT64, [1, 1]),
                    helper.make_tensor_value_info("logits_out", TensorProto.FLOAT, [1, vocab])]
    body_outputs += [helper.make_tensor_value_info(p + "_out", TensorProto.FLOAT, cache_shape("total")) for p in present]
    body_outputs.append(helper.make_tensor_value_info("token_scan", TensorProto.INT64, [1, 1]))
    body_nodes = list(body_graph.node) + [
        helper.make_node("ArgMax", ["logits_out"], ["token_out"], name="body/argmax", axis=-1, keepdims=1),
        helper.make_node("Identity", ["token_out"], ["token_scan"], name="body/token_scan"),
        helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body/cond"),
    ]
    body = helper.make_graph(body_nodes, "decode_step", body_inputs, body_outputs,
                             value_info=list(body_graph.value_info))

    loop_outputs = ["last_token", "logits"] + [f"final_{c}" for c in cache_names] + ["tokens_scanned"]
    nodes = list(outer.node) + [
        helper.make_node("ArgMax", ["logits_prefill"], ["first_token"], name="first_token", axis=-1, keepdims=1),
        helper.make_node("Loop", ["trip_count", "", "first_token", "logits_prefill"] + [p + "_prefill" for p in present],
                         loop_outputs, name="decode", body=body),
        helper.make_node("Reshape", ["tokens_scanned", "row_shape"], ["tokens_row"], name="tokens_row"),
        helper.make_node("Concat", ["first_token", "tokens_row"], ["output_ids"], name="output_ids", axis=1),
    ]
    # The prefill's outputs become internal values feeding the Loop.
    rename = {"prefill/logits": "logits_prefill", **{f"prefill/{p}": p + "_prefill" for p in present}}
    for node in nodes:
        node.input[:] = [rename.get(v, v) for v in node.input]
        node.output[:] = [rename.get(v, v) for v in node.output]
    initializers = list(outer.initializer) + extra + [
        numpy_helper.from_array(np.array(NEW_TOKENS - 1, dtype=np.int64), "trip_count"),
        numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "row_shape")]
    graph = helper.make_graph(
        nodes, "gpt2_greedy_loop",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "prompt"])],
        [helper.make_tensor_value_info("output_ids", TensorProto.INT64, [1, NEW_TOKENS]),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, vocab])],
        initializers, value_info=[v for v in outer.value_info if v.name not in rename])
    onnx_model = finish(graph, f"Greedy decoding of {NEW_TOKENS} tokens with a tiny seeded GPT-2 (seed {seed}): "
                               "prefill, then a Loop over the decoder step with the key/value cache carried.")

    # The composed graph must equal the plain torch greedy loop.
    run = session(onnx_model)
    for length in (1, 5, 12):
        ids = torch.randint(0, vocab, (1, length), generator=generator)
        ids_ort, logits_ort = run.run(None, {"input_ids": ids.numpy()})
        ids_torch, logits_torch = torch_greedy(model, ids, NEW_TOKENS)
        assert np.array_equal(ids_ort, ids_torch), (length, ids_ort, ids_torch)
        scaled = np.abs(logits_ort - logits_torch).max() / np.abs(logits_torch).max()
        assert scaled < 1e-5, (length, scaled)
    return onnx_model


# ---------------------------------------------------------------- jit-if

def branchy_module():
    import torch

    class Branchy(torch.nn.Module):
        """A data-dependent branch: the sign of the input's sum picks the path."""

        def __init__(self):
            super().__init__()
            self.wide1 = torch.nn.Conv2d(4, 8, 3, padding=1)
            self.wide2 = torch.nn.Conv2d(8, 8, 3, padding=1)
            self.narrow = torch.nn.Conv2d(4, 8, 1)
            self.mix = torch.nn.Linear(8, 8)
            self.head = torch.nn.Conv2d(8, 6, 1)

        def forward(self, x):
            if bool(x.sum() > 0):
                y = self.wide2(torch.relu(self.wide1(x)))
            else:
                y = torch.sigmoid(self.narrow(x))
                y = self.mix(y.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return self.head(y)

    return Branchy()


def build_jit_if(seed):
    import onnx
    import torch
    torch.manual_seed(seed)
    module = torch.jit.script(branchy_module().eval())
    generator = torch.Generator().manual_seed(seed)
    example = torch.randn(1, 4, 16, 16, generator=generator)
    model = export_graph(module, (example,), ["input"], ["output"],
                         {"input": {0: "batch", 2: "height", 3: "width"},
                          "output": {0: "batch", 2: "height", 3: "width"}})
    if not any(n.op_type == "If" for n in model.graph.node):
        raise SystemExit("control_flow_models: jit-if: the export has no If node")
    onnx.checker.check_model(model, full_check=True)
    run = session(model)
    for shift in (0.5, -1.5):  # then-branch, else-branch
        x = torch.randn(2, 4, 16, 16, generator=generator) + shift
        with torch.no_grad():
            expected = module(x).numpy()
        got = run.run(None, {"input": x.numpy()})[0]
        assert np.abs(got - expected).max() <= 1e-5 * np.abs(expected).max(), shift
    return model


# ---------------------------------------------------------------- scan-rnn

def build_scan_rnn(seed):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.Generator(np.random.PCG64(seed))
    w = (rng.standard_normal((RNN_INPUT, RNN_HIDDEN)) / np.sqrt(RNN_INPUT)).astype(np.float32)
    r = (0.9 * rng.standard_normal((RNN_HIDDEN, RNN_HIDDEN)) / np.sqrt(RNN_HIDDEN)).astype(np.float32)
    b = (0.1 * rng.standard_normal(RNN_HIDDEN)).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("MatMul", ["x_t", "W"], ["xw"], name="body/xw"),
         helper.make_node("MatMul", ["h_prev", "R"], ["hr"], name="body/hr"),
         helper.make_node("Add", ["xw", "hr"], ["pre"], name="body/sum"),
         helper.make_node("Add", ["pre", "b"], ["pre_b"], name="body/bias"),
         helper.make_node("Tanh", ["pre_b"], ["h_next"], name="body/tanh"),
         helper.make_node("Identity", ["h_next"], ["h_t"], name="body/scan_out")],
        "rnn_cell",
        [helper.make_tensor_value_info("h_prev", TensorProto.FLOAT, ["batch", RNN_HIDDEN]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, ["batch", RNN_INPUT])],
        [helper.make_tensor_value_info("h_next", TensorProto.FLOAT, ["batch", RNN_HIDDEN]),
         helper.make_tensor_value_info("h_t", TensorProto.FLOAT, ["batch", RNN_HIDDEN])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["h0", "x"], ["h_final", "h_all"], name="rnn", body=body, num_scan_inputs=1)],
        "scan_rnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["time", "batch", RNN_INPUT]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, ["batch", RNN_HIDDEN])],
        [helper.make_tensor_value_info("h_final", TensorProto.FLOAT, ["batch", RNN_HIDDEN]),
         helper.make_tensor_value_info("h_all", TensorProto.FLOAT, ["time", "batch", RNN_HIDDEN])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"), numpy_helper.from_array(b, "b")])
    model = finish(graph, f"A tanh RNN cell run by Scan; W, R, b (seed {seed}) are outer initializers captured by the body.")
    x = rng.standard_normal((7, 3, RNN_INPUT)).astype(np.float32)
    h = rng.standard_normal((3, RNN_HIDDEN)).astype(np.float32)
    h_final, h_all = session(model).run(None, {"x": x, "h0": h})
    states = []
    for t in range(x.shape[0]):
        h = np.tanh(x[t].astype(np.float64) @ w + h @ r + b)
        states.append(h)
    assert np.abs(h_all - np.stack(states)).max() < 1e-5 and np.abs(h_final - states[-1]).max() < 1e-5
    return model


# ---------------------------------------------------------------- detect-loop

def greedy_suppression(boxes, scores):
    """The NumPy statement of detect-loop: indices (by descending score) of the kept boxes."""
    kept = []
    for i in np.argsort(-scores, kind="stable"):
        if scores[i] <= SCORE_THRESHOLD:
            break
        box = boxes[i]
        ok = True
        for j in kept:
            other = boxes[j]
            inter = (max(0.0, min(box[2], other[2]) - max(box[0], other[0])) *
                     max(0.0, min(box[3], other[3]) - max(box[1], other[1])))
            union = (box[2] - box[0]) * (box[3] - box[1]) + (other[2] - other[0]) * (other[3] - other[1]) - inter
            if inter / union > IOU_THRESHOLD:
                ok = False
                break
        if ok:
            kept.append(i)
    return np.array(kept, dtype=np.int64)


def build_detect_loop(seed):
    from onnx import TensorProto, helper, numpy_helper
    f = TensorProto.FLOAT
    keep_row = helper.make_graph(
        [helper.make_node("Unsqueeze", ["box", "axis0"], ["box_row"], name="keep/box_row"),
         helper.make_node("Concat", ["kept_boxes_in", "box_row"], ["kept_boxes_then"], name="keep/boxes", axis=0),
         helper.make_node("Unsqueeze", ["score", "axis0"], ["score_row"], name="keep/score_row"),
         helper.make_node("Concat", ["kept_scores_in", "score_row"], ["kept_scores_then"], name="keep/scores", axis=0)],
        "keep_box", [],
        [helper.make_tensor_value_info("kept_boxes_then", f, ["kept_plus_one", 4]),
         helper.make_tensor_value_info("kept_scores_then", f, ["kept_plus_one"])])
    skip_row = helper.make_graph(
        [helper.make_node("Identity", ["kept_boxes_in"], ["kept_boxes_else"], name="skip/boxes"),
         helper.make_node("Identity", ["kept_scores_in"], ["kept_scores_else"], name="skip/scores")],
        "skip_box", [],
        [helper.make_tensor_value_info("kept_boxes_else", f, ["kept", 4]),
         helper.make_tensor_value_info("kept_scores_else", f, ["kept"])])
    corners = ["x1", "y1", "x2", "y2"]
    nodes = [
        helper.make_node("Gather", ["sorted_boxes", "i"], ["box"], name="body/box", axis=0),
        helper.make_node("Gather", ["sorted_scores", "i"], ["score"], name="body/score", axis=0),
        helper.make_node("Split", ["box", "four_ones"], [f"b_{c}" for c in corners], name="body/box_split", axis=0),
        helper.make_node("Split", ["kept_boxes_in", "four_ones"], [f"k_{c}" for c in corners], name="body/kept_split", axis=1),
        helper.make_node("Max", ["b_x1", "k_x1"], ["i_x1"], name="body/ix1"),
        helper.make_node("Max", ["b_y1", "k_y1"], ["i_y1"], name="body/iy1"),
        helper.make_node("Min", ["b_x2", "k_x2"], ["i_x2"], name="body/ix2"),
        helper.make_node("Min", ["b_y2", "k_y2"], ["i_y2"], name="body/iy2"),
        helper.make_node("Sub", ["i_x2", "i_x1"], ["i_w_raw"], name="body/iw_raw"),
        helper.make_node("Sub", ["i_y2", "i_y1"], ["i_h_raw"], name="body/ih_raw"),
        helper.make_node("Relu", ["i_w_raw"], ["i_w"], name="body/iw"),
        helper.make_node("Relu", ["i_h_raw"], ["i_h"], name="body/ih"),
        helper.make_node("Mul", ["i_w", "i_h"], ["inter"], name="body/inter"),
        helper.make_node("Sub", ["b_x2", "b_x1"], ["b_w"], name="body/bw"),
        helper.make_node("Sub", ["b_y2", "b_y1"], ["b_h"], name="body/bh"),
        helper.make_node("Mul", ["b_w", "b_h"], ["b_area"], name="body/barea"),
        helper.make_node("Sub", ["k_x2", "k_x1"], ["k_w"], name="body/kw"),
        helper.make_node("Sub", ["k_y2", "k_y1"], ["k_h"], name="body/kh"),
        helper.make_node("Mul", ["k_w", "k_h"], ["k_area"], name="body/karea"),
        helper.make_node("Add", ["b_area", "k_area"], ["areas"], name="body/areas"),
        helper.make_node("Sub", ["areas", "inter"], ["union"], name="body/union"),
        helper.make_node("Div", ["inter", "union"], ["iou"], name="body/iou"),
        helper.make_node("Reshape", ["iou", "flat"], ["iou_flat"], name="body/iou_flat"),
        # A leading 0 so the maximum exists while nothing is kept yet.
        helper.make_node("Concat", ["zero", "iou_flat"], ["iou_padded"], name="body/iou_padded", axis=0),
        helper.make_node("ReduceMax", ["iou_padded"], ["max_iou"], name="body/max_iou", keepdims=0),
        helper.make_node("Greater", ["score", "score_threshold"], ["score_ok"], name="body/score_ok"),
        helper.make_node("LessOrEqual", ["max_iou", "iou_threshold"], ["overlap_ok"], name="body/overlap_ok"),
        helper.make_node("And", ["score_ok", "overlap_ok"], ["keep"], name="body/keep"),
        helper.make_node("If", ["keep"], ["kept_boxes_out", "kept_scores_out"], name="body/if_keep",
                         then_branch=keep_row, else_branch=skip_row),
        # Sorted by score: once a score is at or under the threshold, so are all the rest.
        helper.make_node("Identity", ["score_ok"], ["cond_out"], name="body/cond"),
    ]
    body = helper.make_graph(
        nodes, "suppress_step",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("kept_boxes_in", f, ["kept", 4]),
         helper.make_tensor_value_info("kept_scores_in", f, ["kept"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("kept_boxes_out", f, ["kept_next", 4]),
         helper.make_tensor_value_info("kept_scores_out", f, ["kept_next"])])
    outer = [
        helper.make_node("Shape", ["boxes"], ["boxes_shape"], name="boxes_shape"),
        helper.make_node("Gather", ["boxes_shape", "index0"], ["count"], name="count", axis=0),
        helper.make_node("Shape", ["scores"], ["scores_shape"], name="scores_shape"),
        helper.make_node("TopK", ["scores", "scores_shape"], ["sorted_scores", "order"], name="sort",
                         axis=0, largest=1, sorted=1),
        helper.make_node("Gather", ["boxes", "order"], ["sorted_boxes"], name="sorted_boxes", axis=0),
        helper.make_node("Loop", ["count", "true", "no_boxes", "no_scores"], ["kept_boxes", "kept_scores"],
                         name="suppress", body=body),
    ]
    constants = {
        "index0": np.array(0, dtype=np.int64), "true": np.array(True),
        "no_boxes": np.zeros((0, 4), dtype=np.float32), "no_scores": np.zeros(0, dtype=np.float32),
        "four_ones": np.ones(4, dtype=np.int64), "axis0": np.array([0], dtype=np.int64),
        "flat": np.array([-1], dtype=np.int64), "zero": np.zeros(1, dtype=np.float32),
        "score_threshold": np.array(SCORE_THRESHOLD, dtype=np.float32),
        "iou_threshold": np.array(IOU_THRESHOLD, dtype=np.float32),
    }
    graph = helper.make_graph(
        outer, "detect_loop",
        [helper.make_tensor_value_info("boxes", f, ["boxes", 4]),
         helper.make_tensor_value_info("scores", f, ["boxes"])],
        [helper.make_tensor_value_info("kept_boxes", f, ["kept", 4]),
         helper.make_tensor_value_info("kept_scores", f, ["kept"])],
        [numpy_helper.from_array(v, k) for k, v in constants.items()])
    model = finish(graph, f"Greedy box suppression in a Loop (score > {SCORE_THRESHOLD}, IoU <= {IOU_THRESHOLD}); "
                          "the kept set grows through an If inside the body.")
    run = session(model)
    rng = np.random.Generator(np.random.PCG64(seed))
    for n in (1, 9, 40):
        boxes, scores = detection_sample(rng, n)
        got_boxes, got_scores = run.run(None, {"boxes": boxes, "scores": scores})
        kept = greedy_suppression(boxes.astype(np.float64), scores)
        assert np.array_equal(got_boxes, boxes[kept].reshape(-1, 4)) and np.array_equal(got_scores, scores[kept]), n
    return model


def detection_sample(rng, n):
    """n boxes (x1, y1, x2, y2) in clusters of 8 around random centres, so that suppression happens,
    with uniform scores in [0, 1). make_reference.py makes its inputs the same way."""
    centres = rng.uniform(60.0, 440.0, size=((n + 7) // 8, 2))
    sizes = rng.uniform(30.0, 120.0, size=((n + 7) // 8, 2))
    rows = []
    for i in range(n):
        c, s = centres[i // 8], sizes[i // 8]
        jitter = rng.normal(0.0, 0.15, size=4) * np.concatenate([s, s])
        rows.append(np.concatenate([c - s / 2, c + s / 2]) + jitter)
    boxes = np.array(rows, dtype=np.float32)
    boxes[:, 2:] = np.maximum(boxes[:, 2:], boxes[:, :2] + 1.0)
    return boxes, rng.uniform(0.0, 1.0, size=n).astype(np.float32)


BUILDERS = {
    "gpt2-loop": build_gpt2_loop,
    "jit-if": build_jit_if,
    "scan-rnn": build_scan_rnn,
    "detect-loop": build_detect_loop,
}


def build(name: str, entry: dict, out_path: Path) -> None:
    """Makes one model (seed from its tools/models.json entry), checks it, writes it to out_path."""
    import onnx
    if name not in BUILDERS:
        raise SystemExit(f"control_flow_models: no builder for {name!r}; known: {list(BUILDERS)}")
    model = BUILDERS[name](entry["source"]["seed"])
    onnx.save_model(model, str(out_path), save_as_external_data=False)
    ops = ", ".join(sorted(operators(model.graph)))
    print(f"control_flow_models: {name} -> {out_path} (opset {OPSET}; operators {ops})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="", help=f"comma-separated names (default: {','.join(BUILDERS)})")
    parser.add_argument("--out-dir", default="", help="where to write (default: $ONEMODEL_HOME/models)")
    args = parser.parse_args()
    manifest = paths.load_manifest()["models"]
    wanted = [m for m in args.models.split(",") if m] or list(BUILDERS)
    out_dir = Path(args.out_dir) if args.out_dir else paths.models_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        if name not in manifest or manifest[name]["source"]["kind"] != "script":
            raise SystemExit(f"control_flow_models: {name} is not a script-made model of tools/models.json")
        entry = manifest[name]
        out_path = out_dir / entry["file"]
        build(name, entry, out_path)
        digest = paths.sha256_file(out_path)
        note = "matches its pin" if digest == entry.get("sha256") else f"differs from the pin {entry.get('sha256')}"
        print(f"control_flow_models: {name}: SHA-256 {digest}, {out_path.stat().st_size} bytes, {note}")


if __name__ == "__main__":
    main()
