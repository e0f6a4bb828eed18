"""Writes the hostile control-flow files (issue 13, spec/values.md section 5): small ONNX files
whose loops never end or run past any sensible count, whose subgraphs nest too deep or number too
many, whose branches contradict the node's declared outputs or whose bodies have the wrong
arity. tests/unit/control_flow_hostile_test.cpp loads and runs each in both engines and requires
its typed error (the file name's prefix is the SessionError kind).

Run: build/venv/bin/python3 tests/data/hostile/make_control_flow_hostile.py
"""
import os

import onnx
from onnx import TensorProto, helper

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "control-flow")
INT64_MAX = 2**63 - 1


def save(name, nodes, inputs, outputs, initializers=(), check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_control_flow_hostile.py")
    model.ir_version = 8
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(here, name + ".onnx"))


def f32(name, shape=None):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def doubling_body():
    """Loop body: (i, cond, h) -> (cond, h + h)."""
    return helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]), helper.make_node("Add", ["h", "h"], ["h_out"])],
        "double", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                   helper.make_tensor_value_info("cond", TensorProto.BOOL, []), f32("h")],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), f32("h_out")])


def identity_branch(name):
    return helper.make_graph([helper.make_node("Identity", ["x"], [name + "_y"])], name, [], [f32(name + "_y")])


os.makedirs(here, exist_ok=True)

# No trip count and no condition: a loop that never ends (stopped by max_loop_iterations).
save("ResourceExhausted-loop-endless", [helper.make_node("Loop", ["", "", "h0"], ["h"], body=doubling_body())],
     [f32("h0", [2])], [f32("h", [2])])
# A for-loop of 2^63 - 1 iterations: refused before the first one runs.
save("ResourceExhausted-loop-trip-int64-max",
     [helper.make_node("Loop", ["m", "", "h0"], ["h"], body=doubling_body())], [f32("h0", [2])], [f32("h", [2])],
     [helper.make_tensor("m", TensorProto.INT64, [], [INT64_MAX])])
# A condition that stays true (the body passes it on) with a huge trip count.
save("ResourceExhausted-loop-cond-forever",
     [helper.make_node("Loop", ["m", "go", "h0"], ["h"], body=doubling_body())], [f32("h0", [2])], [f32("h", [2])],
     [helper.make_tensor("m", TensorProto.INT64, [], [INT64_MAX]), helper.make_tensor("go", TensorProto.BOOL, [], [True])])

# Ifs nested 40 deep (the limit is 32). Written as protobuf bytes by hand: Python's protobuf
# refuses to copy messages nested this deep (upb's decode depth); the library's importer reads
# them (3 message levels per subgraph, within its 128).
def varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def graph_attribute(name, graph_bytes):
    return field(1, name.encode()) + field(6, graph_bytes) + varint(20 << 3) + varint(5)  # type GRAPH


def if_graph_bytes(name, output, then_bytes, else_bytes):
    node = (field(1, b"c") + field(2, output.encode()) + field(4, b"If") +
            field(5, graph_attribute("then_branch", then_bytes)) + field(5, graph_attribute("else_branch", else_bytes)))
    return field(1, node) + field(2, name.encode()) + field(12, f32(output).SerializeToString())


inner = identity_branch("leaf").SerializeToString()
for level in range(39):
    inner = if_graph_bytes(f"level{level}", f"l{level}_y", inner, identity_branch(f"e{level}").SerializeToString())
top_node = (field(1, b"c") + field(2, b"y") + field(4, b"If") + field(5, graph_attribute("then_branch", inner)) +
            field(5, graph_attribute("else_branch", identity_branch("top").SerializeToString())))
top_graph = (field(1, top_node) + field(2, b"nested") +
             field(11, helper.make_tensor_value_info("c", TensorProto.BOOL, []).SerializeToString()) +
             field(11, f32("x", [1]).SerializeToString()) + field(12, f32("y").SerializeToString()))
model_bytes = (varint(1 << 3) + varint(8) + field(2, b"make_control_flow_hostile.py") + field(7, top_graph) +
               field(8, helper.make_opsetid("", 17).SerializeToString()))
with open(os.path.join(here, "Unsupported-if-nested-40.onnx"), "wb") as f:
    f.write(model_bytes)

# 2049 If nodes of two branches each: 4098 subgraphs (the limit is 4096).
nodes = [helper.make_node("If", ["c"], [f"y{k}"], then_branch=identity_branch(f"t{k}"), else_branch=identity_branch(f"f{k}"))
         for k in range(2049)]
save("Unsupported-subgraphs-4098", nodes, [helper.make_tensor_value_info("c", TensorProto.BOOL, []), f32("x", [1])],
     [f32(f"y{k}") for k in range(2049)], check=False)

# A branch declaring int64 where the node's output is declared float.
int_branch = helper.make_graph([helper.make_node("Cast", ["x"], ["z"], to=TensorProto.INT64)], "ints", [],
                               [helper.make_tensor_value_info("z", TensorProto.INT64, None)])
save("InvalidModel-if-branch-type", [helper.make_node("If", ["c"], ["y"], then_branch=identity_branch("t"), else_branch=int_branch)],
     [helper.make_tensor_value_info("c", TensorProto.BOOL, []), f32("x", [1])], [f32("y")], check=False)
# A branch of rank 3 where the node's output is declared rank 1.
rank3 = helper.make_graph([helper.make_node("Unsqueeze", ["x", "axes"], ["z"])], "rank3", [], [f32("z", [1, 1, 1])])
save("InvalidModel-if-branch-rank", [helper.make_node("If", ["c"], ["y"], then_branch=identity_branch("t"), else_branch=rank3)],
     [helper.make_tensor_value_info("c", TensorProto.BOOL, []), f32("x", [1])], [f32("y", [1])],
     [helper.make_tensor("axes", TensorProto.INT64, [2], [0, 1])], check=False)
# A Loop body taking one input fewer than the loop carries.
short_body = helper.make_graph([helper.make_node("Identity", ["cond"], ["cond_out"])], "short",
                               [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                               [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, [])])
save("InvalidModel-loop-body-arity", [helper.make_node("Loop", ["m", "", "h0"], ["h"], body=short_body)], [f32("h0", [2])],
     [f32("h", [2])], [helper.make_tensor("m", TensorProto.INT64, [], [3])], check=False)
# A Scan direction of 2.
scan_body = helper.make_graph([helper.make_node("Add", ["s", "x_t"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y_t"])],
                              "acc", [f32("s", [2]), f32("x_t", [2])], [f32("s_out", [2]), f32("y_t", [2])])
save("InvalidModel-scan-direction", [helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], body=scan_body, num_scan_inputs=1,
                                                      scan_input_directions=[2])],
     [f32("s0", [2]), f32("xs", [3, 2])], [f32("s", [2]), f32("ys", [3, 2])], check=False)
