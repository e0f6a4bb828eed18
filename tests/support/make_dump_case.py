#!/usr/bin/env python3
"""Builds dump_case.onnx, the model that tests/unit/model_dump_test.cpp rebuilds by hand as an
IrModel. The expected text in that test is `tools/onnx_dump.py dump_case.onnx` (the onnx package's
view), so that the C++ dump is checked against an independent writer. Run:
  build/venv/bin/python tests/support/make_dump_case.py && build/venv/bin/python tools/onnx_dump.py dump_case.onnx
"""
import onnx, struct
from onnx import helper as h, TensorProto as T, AttributeProto as A
m = onnx.ModelProto()
m.ir_version = 10
m.producer_name = 'tester "q"\\'
m.producer_version = '1.0'
m.domain = 'ai.example'
m.model_version = 42
m.doc_string = 'model doc'
m.opset_import.add(domain='', version=21)
m.opset_import.add(domain='com.example', version=1)
p = m.metadata_props.add(); p.key = 'k\u00e9y'; p.value = 'line\nbreak'
g = m.graph
g.name = 'main'
g.doc_string = 'graph doc'
x = g.input.add(); x.name = 'x'; tt = x.type.tensor_type; tt.elem_type = 1
d = tt.shape.dim.add(); d.dim_param = 'batch'
d = tt.shape.dim.add(); d.dim_value = 4
tt.shape.dim.add()
x.doc_string = 'input doc'
s = g.input.add(); s.name = 'seq'; s.type.sequence_type.elem_type.tensor_type.elem_type = 7
o = g.input.add(); o.name = 'opt'; o.type.optional_type.elem_type.map_type.key_type = 8
o.type.optional_type.elem_type.map_type.value_type.tensor_type.elem_type = 1
o.type.optional_type.elem_type.map_type.value_type.tensor_type.shape.SetInParent()
y = g.output.add(); y.name = 'y'; y.type.tensor_type.elem_type = 1
z = g.output.add(); z.name = 'z'
vi = g.value_info.add(); vi.name = 'h'; vi.type.opaque_type.domain = 'd'; vi.type.opaque_type.name = 'n'
vi = g.value_info.add(); vi.name = 'sp'; vi.type.sparse_tensor_type.elem_type = 10
g.initializer.append(h.make_tensor('w', T.FLOAT, [2, 2], [1.0, -0.0, float('inf'), 0.5]))
g.initializer[0].doc_string = 'weights'
g.initializer.append(h.make_tensor('names', T.STRING, [2], [b'ab', b'\x00\xff']))
g.initializer.append(h.make_tensor('b', T.BOOL, [3], [True, False, True]))
g.initializer.append(h.make_tensor('r', T.INT64, [], [-7]))
sp = g.sparse_initializer.add()
sp.values.CopyFrom(h.make_tensor('spv', T.FLOAT, [2], [3.0, 4.0]))
sp.indices.CopyFrom(h.make_tensor('spi', T.INT64, [2], [1, 5]))
sp.dims.extend([2, 3])
then_g = h.make_graph([h.make_node('Identity', ['x'], ['t_out'])], 'then', [], [h.make_tensor_value_info('t_out', T.FLOAT, None)])
else_g = h.make_graph([h.make_node('Neg', ['x'], ['e_out'], name='neg')], 'else', [], [h.make_tensor_value_info('e_out', T.FLOAT, [])])
n = h.make_node('If', ['c'], ['y'], name='if0', then_branch=then_g, else_branch=else_g)
n.doc_string = 'node doc'
g.node.append(n)
n = h.make_node('Custom', ['x', '', 'w'], ['z', ''], name='c\tq', domain='com.example',
                alpha=0.1, count=-3, mode=b'\x01a"', fl=[1.5, float('nan')], il=[1, -2], sl=['a', 'b'],
                t=h.make_tensor('tv', T.INT32, [2], [1, -1]),
                ts=[h.make_tensor('t1', T.UINT8, [1], [200]), h.make_tensor('t2', T.FLOAT16, [1], [1.0])],
                gs=[then_g])
n.overload = 'ov'
a = n.attribute.add(); a.name = 'tp'; a.type = A.TYPE_PROTO; a.tp.tensor_type.elem_type = 6
a = n.attribute.add(); a.name = 'tps'; a.type = A.TYPE_PROTOS; a.type_protos.add().sequence_type.SetInParent()
a = n.attribute.add(); a.name = 'spt'; a.type = A.SPARSE_TENSOR; a.sparse_tensor.CopyFrom(sp)
a = n.attribute.add(); a.name = 'untyped'; a.i = 9; a.doc_string = 'attr doc'
g.node.append(n)
f = m.functions.add()
f.name = 'Fn'; f.domain = 'com.example'; f.overload = 'o1'; f.doc_string = 'fn doc'
f.input.extend(['a']); f.output.extend(['b']); f.attribute.extend(['alpha'])
ad = f.attribute_proto.add(); ad.name = 'beta'; ad.type = A.FLOAT; ad.f = 2.0
f.opset_import.add(domain='', version=18)
fn = h.make_node('LeakyRelu', ['a'], ['b'])
r = fn.attribute.add(); r.name = 'alpha'; r.type = A.FLOAT; r.ref_attr_name = 'alpha'
f.node.append(fn)
onnx.save(m, 'dump_case.onnx')
