#!/usr/bin/env python3
"""Writes the committed seeds of the operator fuzzer, fuzz/corpus/operators/seed-<op>-<n>.bin.

An input is two bytes naming the row of the operator table (bit 0 of the first byte clear: the
other 15 bits, big-endian, index all_ops(), the order of spec/operators.tsv) followed by the bytes diff/op_fuzz_case.cpp reads its decisions
from. A few operators per family, a few inputs each, from a fixed random stream, so the seeds are
small and reproducible:
    python3 tools/fuzz/make_operator_seeds.py"""
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Two or three operators of each family file of reference/ops/table_*.cpp.
PICKS = ["Add", "Where", "Cast", "Pow", "Softmax", "ReduceSum", "LayerNormalization", "Reshape", "Slice",
         "Gather", "Expand", "Pad", "MatMul", "Conv", "MaxPool", "Resize", "LSTM", "GRU", "Attention",
         "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss", "QuantizeLinear", "QLinearConv", "TopK"]
# Operators with an optimized override (optimized/ops/op_*.cpp): one seed each whose first input is
# a [3, 3] float32 tensor of special values (the builder's one-in-four "special" tensor: NaNs of
# both signs, with payloads and signalling, +-inf, +-0, subnormals, +-1, FLT_MAX, FLT_MIN), every
# later decision left at its plain default (zero bytes). Replayed by
# operator_fuzz_property_test, they pin the canonical-NaN and signed-zero rules of every override.
OVERRIDDEN = ["Abs", "Add", "AveragePool", "BatchNormalization", "Clip", "Concat", "Conv", "Div", "Erf", "Exp",
              "Gelu", "GlobalAveragePool", "GlobalMaxPool", "HardSigmoid", "HardSwish", "LeakyRelu", "Log",
              "LogSoftmax", "MatMul", "MaxPool", "Mul", "Neg", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceMax",
              "ReduceMin", "ReduceSum", "ReduceSumSquare", "Relu", "Resize", "Sigmoid", "Softmax", "Sqrt", "Sub",
              "Tanh", "Transpose"]


def special_seed(index):
    # row (2 bytes), opset offset, opset escape, rank choice (2), extents (3, 3), main type choice
    # (0: the row's types), float32 choice, then the tensor: special flag 3, nine special values.
    return bytes([(index >> 8) << 1, index & 0xFF, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 2, 3, 4, 5, 6, 8, 9])


def main():
    with open(os.path.join(ROOT, "spec/operators.tsv")) as f:
        rows = [line.split("\t")[1] for line in list(f)[1:]]
    out = os.path.join(ROOT, "fuzz/corpus/operators")
    os.makedirs(out, exist_ok=True)
    for op in OVERRIDDEN:
        with open(os.path.join(out, "special-%s.bin" % op), "wb") as f:
            f.write(special_seed(rows.index(op)))
    rng = random.Random(10)
    for op in PICKS:
        index = rows.index(op)
        for n in range(2):
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(48, 160)))
            with open(os.path.join(out, "seed-%s-%d.bin" % (op, n)), "wb") as f:
                f.write(bytes([(index >> 8) << 1, index & 0xFF]) + body)


if __name__ == "__main__":
    main()
