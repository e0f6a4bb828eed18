#!/usr/bin/env python3
"""Writes the committed seeds of the operator fuzzer, fuzz/corpus/operators/seed-<op>-<n>.bin.

An input is two bytes naming the row of the operator table (big-endian index into all_ops(), the
order of spec/operators.tsv) followed by the bytes diff/op_fuzz_case.cpp reads its decisions
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


def main():
    with open(os.path.join(ROOT, "spec/operators.tsv")) as f:
        rows = [line.split("\t")[1] for line in list(f)[1:]]
    out = os.path.join(ROOT, "fuzz/corpus/operators")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(10)
    for op in PICKS:
        index = rows.index(op)
        for n in range(2):
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(48, 160)))
            with open(os.path.join(out, "seed-%s-%d.bin" % (op, n)), "wb") as f:
                f.write(bytes([index >> 8, index & 0xFF]) + body)


if __name__ == "__main__":
    main()
