"""Writes the hostile files of session load time (issue 11 defect 5, spec/optimized-engine.md
"Load time"): small files whose graphs made the optimized engine's graph passes super-linear.

siblings-800.onnx: 800 element-wise nodes (Add, Mul, Relu, Sigmoid in turn) reading the one input
x, each result a graph output. Before the fix the elementwise-chain pass rebuilt a set for every
prefix of every start node: 6.3 s to load in a Release build, where the reference engine takes
0.01 s. tests/unit/pass_load_work_test.cpp loads it in both engines.

Run: build/venv/bin/python3 tests/data/hostile/make_load_hostile.py
"""
import os

import onnx
from onnx import TensorProto, helper

here = os.path.dirname(os.path.abspath(__file__))
count = 800
ops = ["Add", "Mul", "Relu", "Sigmoid"]
nodes = []
outputs = []
for i in range(count):
    op = ops[i % len(ops)]
    inputs = ["x", "c"] if op in ("Add", "Mul") else ["x"]
    nodes.append(helper.make_node(op, inputs, [f"y{i}"], name=f"n{i}"))
    outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [2]))
graph = helper.make_graph(nodes, "siblings", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], outputs,
                          initializer=[helper.make_tensor("c", TensorProto.FLOAT, [], [0.5])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_load_hostile.py")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "siblings-800.onnx"))
