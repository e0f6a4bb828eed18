#!/usr/bin/env python3
"""Which QDQ products ONNX Runtime runs as integers, and what our engine gives with the same choice
(docs/design.md "The fourth floor set"; int8.md "Graph rewrites").

    python3 tools/oracles/ort_qdq_choice.py MODEL.onnx [--hybrid OUT.onnx] [--compare REFDIR --ours FILE.npy]

Prints the op-type counts of ONNX Runtime 1.31.1's ORT_ENABLE_ALL graph for MODEL, at this machine's
default and with `session.qdqisint8allowed = 1` (its Arm default), and how many of MODEL's Conv/Gemm
nodes each fuses into an integer node (QLinearConv, QGemm).
--hybrid writes MODEL with exactly the Conv and Gemm nodes of the default graph's fused set replaced
by ai.onnx QLinearConv / QLinearMatMul (the 9-input form with an int32 bias, our extension;
int8.md), the rest as written: run it with `onemodel check REFDIR --model OUT.onnx --modes exact`
to see whether our kernels reproduce ONNX Runtime where both make the same choice.
--compare REFDIR --ours FILE.npy reports, per row of the first output, whether our dumped output
equals ONNX Runtime's stored reference and its int8-allowed run, and the argmax agreement.
The onnx package only reads and edits graphs; onnxruntime only runs them.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

INT8_ALLOWED = "session.qdqisint8allowed"
FUSED = ("QLinearConv", "QGemm")


def optimized_graph(model: Path, allowed: bool, scratch: Path):
    import onnx
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    options.optimized_model_filepath = str(scratch / f"optimized-{int(allowed)}.onnx")
    if allowed:
        options.add_session_config_entry(INT8_ALLOWED, "1")
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    return session, onnx.load(options.optimized_model_filepath).graph


def fused_names(graph) -> set[str]:
    """Names of the source nodes ONNX Runtime fused (it keeps the name and appends _token_N)."""
    return {n.name.split("_token_")[0] for n in graph.node if n.op_type in FUSED}


def hybrid(model: Path, fused: set[str], out: Path) -> collections.Counter:
    import onnx
    from onnx import helper, numpy_helper
    m = onnx.load(str(model))
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = collections.defaultdict(list)
    for n in g.node:
        for i in n.input:
            consumers[i].append(n)
    replace, drop, extra, count = {}, set(), [], collections.Counter()
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm") or n.name not in fused:
            continue
        dx, dw = producer[n.input[0]], producer[n.input[1]]
        db = producer[n.input[2]] if len(n.input) > 2 and n.input[2] else None
        q = consumers[n.output[0]][0]
        weight = dw.input[0]
        if n.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0:
                continue
            if attrs.get("transB", 0):
                t = numpy_helper.from_array(numpy_helper.to_array(inits[weight]).T.copy(), weight + "_T")
                extra.append(t)
                weight = t.name
        inputs = [dx.input[0], dx.input[1], dx.input[2], weight, dw.input[1], dw.input[2], q.input[1], q.input[2]]
        inputs += [db.input[0]] if db is not None else []
        op = "QLinearConv" if n.op_type == "Conv" else "QLinearMatMul"
        node = helper.make_node(op, inputs, [q.output[0]], name=n.name + "/hybrid")
        if op == "QLinearConv":
            node.attribute.extend(n.attribute)
        replace[id(n)] = node
        drop.add(id(q))
        count[n.op_type] += 1
    nodes = [replace.get(id(n), n) for n in g.node if id(n) not in drop]
    del g.node[:]
    g.node.extend(nodes)
    g.initializer.extend(extra)
    onnx.save(m, str(out))  # unused DequantizeLinear nodes stay: they feed nothing and cost little
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--hybrid", type=Path)
    parser.add_argument("--compare", type=Path, help="a reference directory of make_reference.py")
    parser.add_argument("--ours", type=Path, help="our dumped first output (onemodel check --dump)")
    args = parser.parse_args()
    import onnx
    source = onnx.load(str(args.model), load_external_data=False).graph
    products = sum(n.op_type in ("Conv", "Gemm") for n in source.node)
    with tempfile.TemporaryDirectory(prefix="ort-qdq-choice-") as scratch:
        runs = {}
        for allowed in (False, True):
            session, graph = optimized_graph(args.model, allowed, Path(scratch))
            label = INT8_ALLOWED + "=1" if allowed else "default"
            counts = collections.Counter(n.op_type for n in graph.node)
            print(f"{label}: {len(fused_names(graph))} of {products} Conv/Gemm fused to integer nodes; "
                  + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
            runs[allowed] = (session, graph)
        if args.hybrid:
            count = hybrid(args.model, fused_names(runs[False][1]), args.hybrid)
            print(f"hybrid: {dict(count)} written to {args.hybrid}")
        if args.compare:
            if args.ours is None:
                parser.error("--compare needs --ours")
            index = json.loads((args.compare / "index.json").read_text(encoding="utf-8"))
            feeds = {i["name"]: np.load(args.compare / i["file"]) for i in index["inputs"]}
            first = index["outputs"][0]
            ref = np.load(args.compare / first["file"])
            allowed_out = runs[True][0].run([first["name"]], feeds)[0]
            ours = np.load(args.ours)
            for name, other in (("reference (default)", ref), (INT8_ALLOWED, allowed_out)):
                equal = [bool(np.array_equal(ours[r], other[r])) for r in range(ref.shape[0])]
                agree = int((ours.reshape(ref.shape[0], -1).argmax(1) == other.reshape(ref.shape[0], -1).argmax(1)).sum())
                print(f"ours vs {name}: rows bit-equal {sum(equal)}/{len(equal)}, argmax agree {agree}/{len(equal)}")
            agree = int((allowed_out.reshape(ref.shape[0], -1).argmax(1) == ref.reshape(ref.shape[0], -1).argmax(1)).sum())
            print(f"{INT8_ALLOWED} vs reference: argmax agree {agree}/{ref.shape[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
