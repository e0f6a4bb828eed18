#!/usr/bin/env python3
"""Writes models that exercise what the ONNX backend test data rarely holds, for the dump
comparison (tests/cmake/dump.cmake, spec/dump.md): every element type through its typed field
and through raw_data, string tensors, external data, sparse initializers, doc strings, metadata,
model-local functions with attribute defaults and references, and an untyped attribute.

  make_dump_extra_models.py OUTPUT_DIR
"""
import os
import random
import sys

import onnx
from onnx import AttributeProto, TensorProto, helper

# Bits per element (spec/onnx-import.md section 3), by TensorProto.DataType code.
BITS = {1: 32, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32, 7: 64, 9: 8, 10: 16, 11: 64, 12: 32, 13: 64, 14: 64,
        15: 128, 16: 16, 17: 8, 18: 8, 19: 8, 20: 8, 21: 4, 22: 4, 23: 4, 24: 8, 25: 2, 26: 2,
        27: 6, 28: 6}


def base_graph(name, initializers, nodes=None, extra_inputs=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])
    nodes = nodes or [helper.make_node("Identity", ["x"], ["y"], name="id")]
    return helper.make_graph(nodes, name, [x, *extra_inputs], [y], initializers)


def model(graph, **kw):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10, **kw)
    return m


def typed_tensor(rng, code, dims):
    """A tensor whose values are in the typed field the element type uses."""
    t = TensorProto()
    t.name = "t%d" % code
    t.data_type = code
    t.dims.extend(dims)
    count = 1
    for d in dims:
        count *= d
    if code in (1, 14):
        n = count * (2 if code == 14 else 1)
        t.float_data.extend([rng.choice([0.5, -1.25, 3.0e38, -0.0, 1e-40]) for _ in range(n)])
    elif code in (11, 15):
        n = count * (2 if code == 15 else 1)
        t.double_data.extend([rng.uniform(-1e300, 1e300) for _ in range(n)])
    elif code == 7:
        t.int64_data.extend([rng.randint(-2**63, 2**63 - 1) for _ in range(count)])
    elif code == 13:
        t.uint64_data.extend([rng.randint(0, 2**64 - 1) for _ in range(count)])
    elif code == 12:
        t.uint64_data.extend([rng.randint(0, 2**32 - 1) for _ in range(count)])
    elif code == 6:
        t.int32_data.extend([rng.randint(-2**31, 2**31 - 1) for _ in range(count)])
    elif BITS[code] == 16:
        t.int32_data.extend([rng.randint(0, 0xFFFF) for _ in range(count)])
    elif code == 9:
        t.int32_data.extend([rng.choice([0, 1]) for _ in range(count)])
    elif BITS[code] == 8:
        t.int32_data.extend([rng.randint(0, 255) for _ in range(count)])
    elif BITS[code] in (4, 2):
        t.int32_data.extend([rng.randint(0, 255) for _ in range((count * BITS[code] + 7) // 8)])
    elif BITS[code] == 6:
        t.int32_data.extend([rng.randint(0, 63) for _ in range(count)])
    return t


def raw_tensor(rng, code, dims):
    t = TensorProto()
    t.name = "r%d" % code
    t.data_type = code
    t.dims.extend(dims)
    count = 1
    for d in dims:
        count *= d
    nbytes = (count * BITS[code] + 7) // 8
    t.raw_data = bytes(rng.randint(0, 255) for _ in range(nbytes))
    if code == 9:
        t.raw_data = bytes(b & 1 for b in t.raw_data)
    return t


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20240611)

    for code in sorted(BITS):
        for kind, make in (("typed", typed_tensor), ("raw", raw_tensor)):
            dims = [3, 5] if code not in (15,) else [2, 3]
            tensors = [make(rng, code, dims), make(rng, code, []), make(rng, code, [0, 4])]
            for k, t in enumerate(tensors):
                t.name += "_%d" % k
            onnx.save(model(base_graph("%s_%d" % (kind, code), tensors)),
                      os.path.join(out, "%s_%02d.onnx" % (kind, code)))

    strings = helper.make_tensor("s", TensorProto.STRING, [2, 2], [b"", b"a\x00b", "\u00e9".encode(), b"x" * 300])
    onnx.save(model(base_graph("strings", [strings])), os.path.join(out, "strings.onnx"))

    # External data: two tensors in one file next to the model, one with an offset.
    ext_dir = os.path.join(out, "external")
    os.makedirs(ext_dir, exist_ok=True)
    big = raw_tensor(rng, 1, [64, 64])
    big.name = "big"
    small = raw_tensor(rng, 7, [300])
    small.name = "small"
    m = model(base_graph("external", [big, small]))
    onnx.save_model(m, os.path.join(ext_dir, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)

    # Sparse initializers, value_info of every type kind, doc strings, metadata.
    sp = helper.make_sparse_tensor(helper.make_tensor("sv", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0]),
                                   helper.make_tensor("si", TensorProto.INT64, [3], [0, 4, 7]), [2, 4])
    g = base_graph("sparse", [])
    g.sparse_initializer.append(sp)
    g.doc_string = "graph documentation"
    g.node[0].doc_string = "node documentation"
    vi = g.value_info.add()
    vi.name = "unused_seq"
    vi.type.sequence_type.elem_type.tensor_type.elem_type = 7
    vi = g.value_info.add()
    vi.name = "unused_map"
    vi.type.map_type.key_type = 8
    vi.type.map_type.value_type.optional_type.elem_type.tensor_type.elem_type = 1
    vi = g.value_info.add()
    vi.name = "unused_opaque"
    vi.type.opaque_type.domain = "d"
    vi.type.opaque_type.name = "n"
    vi.doc_string = "value doc"
    m = model(g, producer_name="extras", producer_version="0.1", doc_string="model documentation")
    m.domain = "ai.example"
    m.model_version = 3
    helper.set_model_props(m, {"author": "tests", "note": "line\nbreak"})
    onnx.save(m, os.path.join(out, "sparse_docs_metadata.onnx"))

    # A model-local function with an attribute default and an attribute reference, called from
    # the graph; a node attribute without a `type` field; an If with two subgraphs.
    fn = onnx.FunctionProto()
    fn.name = "ScaledRelu"
    fn.domain = "local"
    fn.input.extend(["a"])
    fn.output.extend(["b"])
    fn.attribute.extend(["alpha"])
    default = fn.attribute_proto.add()
    default.name = "beta"
    default.type = AttributeProto.FLOAT
    default.f = 0.25
    fn.opset_import.add(domain="", version=21)
    body = helper.make_node("LeakyRelu", ["a"], ["b"])
    ref = body.attribute.add()
    ref.name = "alpha"
    ref.type = AttributeProto.FLOAT
    ref.ref_attr_name = "alpha"
    fn.node.append(body)
    fn.doc_string = "function documentation"
    call = helper.make_node("ScaledRelu", ["x"], ["h"], domain="local", alpha=0.5)
    untyped = call.attribute.add()
    untyped.name = "untyped"
    untyped.i = 7
    then_g = helper.make_graph([helper.make_node("Identity", ["h"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["h"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["n"])])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    iff = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    g = base_graph("functions", [], nodes=[call, iff], extra_inputs=[cond])
    m = model(g, functions=[fn])
    m.opset_import.add(domain="local", version=1)
    onnx.save(m, os.path.join(out, "functions_subgraphs.onnx"))
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
