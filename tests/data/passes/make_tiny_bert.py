"""Exports a tiny BERT (2 layers, hidden 32, 4 heads of 8, intermediate 64, vocabulary 100) with torch.onnx at opset 17
(dynamo=False), the same exporter path as the real BERT-base export, so the graph-pass tests see
the exact GELU and attention node patterns torch emits (tests/unit/pass_*_test.cpp). Also writes
ONNX Runtime's output for fixed inputs, for the end-to-end check.

Run: ~/onemodel/venvs/oracles/bin/python tests/data/passes/make_tiny_bert.py
"""
import os
import numpy as np
import torch
import transformers

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)
config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                 intermediate_size=64, max_position_embeddings=32, attn_implementation="eager")
model = transformers.BertModel(config, add_pooling_layer=False).eval()
# Random weights (the untrained initialisation has zero biases, which the exporter deduplicates
# into Identity nodes no trained model has); LayerNorm scales near 1.
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.randn_like(p) * 0.2 + (1.0 if name.endswith("LayerNorm.weight") else 0.0))
ids = torch.tensor([[5, 17, 42, 3, 99, 1, 0, 0], [7, 8, 9, 10, 11, 12, 13, 14]], dtype=torch.int64)
mask = torch.tensor([[1, 1, 1, 1, 1, 1, 0, 0], [1] * 8], dtype=torch.int64)


class Wrapper(torch.nn.Module):
    # BertModel.forward's positional arguments do not match what the exporter passes; name them.
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


path = os.path.join(here, "tiny_bert.onnx")
torch.onnx.export(Wrapper(model), (ids, mask), path, input_names=["input_ids", "attention_mask"],
                  output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                  dynamic_axes={"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "s"}})
import onnxruntime as ort
sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
out = sess.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
np.save(os.path.join(here, "tiny_bert_input_ids.npy"), ids.numpy())
np.save(os.path.join(here, "tiny_bert_attention_mask.npy"), mask.numpy())
np.save(os.path.join(here, "tiny_bert_ort.npy"), out.astype(np.float32))
print("saved", path, os.path.getsize(path), "bytes; output", out.shape)
