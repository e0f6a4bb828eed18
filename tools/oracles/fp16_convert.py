"""float32 -> float16 storage conversion of an ONNX model (spec-source fp16.md "Accuracy against ONNX
Runtime", oracles.md "float16 files"): float16 weights and activations, float32 graph inputs and
outputs with a Cast at each end, finite values beyond the float16 range clamped to +-65504.

Written here with the `onnx` package only. onnxconverter-common's float16 converter was not used: it
is not in the oracle venv (tools/oracles/requirements.txt), and the rules this repository needs are
few enough to state and check in one file:

  * A value's element type in the new file (its "storage") is decided by the slot that produces it.
    A node slot runs in float16 when the operator's schema at the model's opset admits
    tensor(float16) for that slot's type constraint (onnx.defs); a constraint that does not (a
    concrete tensor(float) parameter, or a constraint like LayerNormalization's U) keeps its values
    float32, with a Cast inserted in front of any consumer that wants the other type. So an operator
    without float16 in its schema runs in float32 between Casts and nothing is assumed about it.
  * Integer and boolean values (token ids, shapes, masks) are not touched. A float value that flows
    into a Cast to an integer type is a computed size or index (a shape computation done in float),
    and keeps float32 together with the float chain that computes it, so a size above 2048 cannot be
    rounded.
  * Initializers, Constant and ConstantOfShape values that end up float16 are rounded to nearest
    even (numpy's astype), after clamping finite values to +-65504; an infinity or NaN stays what it
    is (fp16.md: "finite values beyond the float16 range clamped"). torch's finfo(float32).min used
    as an attention-mask fill thus becomes -65504.
  * Cast(to=FLOAT) that produces an activation becomes Cast(to=FLOAT16).
  * Graph inputs and outputs keep the types the float32 file declares (fp16.md "Models stored in
    half precision": "a float32 model with a Cast to float16 at each end").

Sub-graphs (If, Loop, Scan) and sparse constants are refused rather than half-converted: none of the
reference models has them.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
FLOAT16 = TensorProto.FLOAT16
HALF_MAX = 65504.0
INTEGER_TYPES = {TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8,
                 TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64}


def to_half_array(values: np.ndarray) -> np.ndarray:
    """Clamp finite values to +-65504, keep inf and NaN, round to nearest even (numpy's cast)."""
    values = np.asarray(values, dtype=np.float32)
    clamped = np.where(np.isfinite(values), np.clip(values, -HALF_MAX, HALF_MAX), values)
    return clamped.astype(np.float16)


def half_tensor(tensor: onnx.TensorProto, name: str | None = None) -> onnx.TensorProto:
    converted = numpy_helper.from_array(to_half_array(numpy_helper.to_array(tensor)),
                                        tensor.name if name is None else name)
    return converted


class Stats:
    def __init__(self):
        self.initializers = 0
        self.clamped = 0
        self.casts = 0
        self.float32_slots = []  # (op_type, node name, slot) kept float32 by the schema or the rules


def _formal(params, index):
    """The formal parameter of input/output `index` (the last one repeats when it is variadic)."""
    if index < len(params):
        return params[index]
    if params and params[-1].option == onnx.defs.OpSchema.FormalParameterOption.Variadic:
        return params[-1]
    return None


def _count_clamped(values: np.ndarray) -> int:
    values = np.asarray(values, dtype=np.float32)
    return int(np.count_nonzero(np.isfinite(values) & (np.abs(values) > HALF_MAX)))


def convert(model: onnx.ModelProto) -> tuple[onnx.ModelProto, Stats]:
    """Returns the float16-storage copy of `model` and what was done. `model` is not modified."""
    stats = Stats()
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    graph = model.graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                raise ValueError(f"fp16: node {node.name} ({node.op_type}) has a sub-graph; not supported")
            if attr.name == "sparse_value":
                raise ValueError(f"fp16: node {node.name} has a sparse constant; not supported")

    # Element type of every value, from ONNX's own type inference on the float32 file.
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=False)
    elem = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.output) + list(inferred.graph.value_info):
        if vi.type.HasField("tensor_type"):
            elem[vi.name] = vi.type.tensor_type.elem_type
    for init in graph.initializer:
        elem[init.name] = init.data_type
    for node in graph.node:
        for out in node.output:
            if out and out not in elem:
                raise ValueError(f"fp16: type inference left {out!r} ({node.op_type}) without a type")

    producer = {out: node for node in graph.node for out in node.output if out}
    consumers = {}
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name:
                consumers.setdefault(name, []).append((node, i))

    # Float chains that compute an integer (a Cast to an integer type) stay float32: walk back from
    # each such Cast over float values.
    shape_float = set()
    stack = [n.input[0] for n in graph.node
             if n.op_type == "Cast" and helper.get_attribute_value(
                 next(a for a in n.attribute if a.name == "to")) in INTEGER_TYPES and elem.get(n.input[0]) == FLOAT]
    while stack:
        value = stack.pop()
        if value in shape_float:
            continue
        shape_float.add(value)
        node = producer.get(value)
        if node is not None:
            stack.extend(i for i in node.input if i and elem.get(i) == FLOAT)
    shape_nodes = {id(producer[v]) for v in shape_float if v in producer}

    def slot_wants_half(node, kind, index) -> bool:
        """Whether input/output `index` of `node` holds float16 in the new file (it is float32 now)."""
        if id(node) in shape_nodes:
            return False
        if node.op_type == "Cast" and node.domain in ("", "ai.onnx"):
            return True  # T1/T2 admit float16 at every opset; the 'to' attribute is rewritten below
        if node.op_type in ("Constant", "ConstantOfShape") and node.domain in ("", "ai.onnx"):
            return True  # their value attribute is converted below
        if any(a.name in ("dtype", "to") for a in node.attribute):
            return False  # the output type is an attribute (EyeLike, Random*): left as written
        domain = node.domain or "ai.onnx"
        try:
            schema = onnx.defs.get_schema(node.op_type, opsets[domain], "" if domain == "ai.onnx" else domain)
        except (onnx.defs.SchemaError, KeyError):
            return False  # an operator ONNX does not define: float32 between Casts
        params = schema.inputs if kind == "input" else schema.outputs
        formal = _formal(params, index)
        if formal is None:
            return False
        constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
        allowed = constraints.get(formal.type_str, [formal.type_str])
        return "tensor(float16)" in allowed

    # Storage of each float32 value: decided by its producing slot (graph inputs stay float32;
    # initializers become float16 unless every consumer wants float32).
    storage = {}
    for inp in graph.input:
        if elem.get(inp.name) == FLOAT:
            storage[inp.name] = FLOAT
    new_inits = []
    for init in graph.initializer:
        if init.data_type == FLOAT:
            wants = [slot_wants_half(n, "input", i) for n, i in consumers.get(init.name, [])]
            if wants and not any(wants):
                storage[init.name] = FLOAT
                new_inits.append(init)
            else:
                storage[init.name] = FLOAT16
                stats.initializers += 1
                stats.clamped += _count_clamped(numpy_helper.to_array(init))
                new_inits.append(half_tensor(init))
        else:
            new_inits.append(init)

    taken = set(elem) | {n.name for n in graph.node}

    def fresh(base: str) -> str:
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        return name

    casts = {}  # (value, to) -> cast output name
    new_nodes = []

    def cast_of(value: str, to: int) -> str:
        key = (value, to)
        if key not in casts:
            suffix = "fp16" if to == FLOAT16 else "fp32"
            out = fresh(f"{value}__{suffix}")
            new_nodes.append(helper.make_node("Cast", [value], [out], name=fresh(f"{value}__cast_{suffix}"), to=to))
            stats.casts += 1
            casts[key] = out
        return casts[key]

    for node in graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        for i, name in enumerate(node.input):
            if not name or elem.get(name) != FLOAT:
                continue
            want = FLOAT16 if slot_wants_half(node, "input", i) else FLOAT
            if want == FLOAT:
                stats.float32_slots.append((node.op_type, node.name, f"input {i}"))
            if storage[name] != want:
                copy.input[i] = cast_of(name, want)
        for i, name in enumerate(node.output):
            if not name or elem.get(name) != FLOAT:
                continue
            half = slot_wants_half(node, "output", i)
            storage[name] = FLOAT16 if half else FLOAT
            if not half:
                stats.float32_slots.append((node.op_type, node.name, f"output {i}"))
        if id(node) not in shape_nodes and node.domain in ("", "ai.onnx"):
            _rewrite_type_attributes(copy, elem, stats)
        new_nodes.append(copy)

    # Graph outputs keep their declared float32: the float16 value gets an internal name and a
    # final Cast writes the declared one.
    renamed = {}
    for out in graph.output:
        if elem.get(out.name) == FLOAT and storage.get(out.name) == FLOAT16:
            renamed[out.name] = fresh(f"{out.name}__fp16")
    if renamed:
        for node in new_nodes:
            for i, name in enumerate(node.input):
                if name in renamed:
                    node.input[i] = renamed[name]
            for i, name in enumerate(node.output):
                if name in renamed:
                    node.output[i] = renamed[name]
        for original, internal in renamed.items():
            new_nodes.append(helper.make_node("Cast", [internal], [original], name=fresh(f"{original}__cast_out"),
                                              to=FLOAT))
            stats.casts += 1

    result = onnx.ModelProto()
    result.CopyFrom(model)
    del result.graph.node[:]
    result.graph.node.extend(new_nodes)
    del result.graph.initializer[:]
    result.graph.initializer.extend(new_inits)
    del result.graph.value_info[:]  # stale float32 types; the checker re-infers them
    result.doc_string = (model.doc_string + "\n" if model.doc_string else "") + (
        "float16 storage made by OneModel tools/oracles/fp16_convert.py (fp16.md): float16 weights and "
        "activations, float32 graph inputs and outputs, finite values beyond +-65504 clamped")
    return result, stats


def _rewrite_type_attributes(node: onnx.NodeProto, elem: dict, stats: Stats) -> None:
    """Cast(to=FLOAT), Constant and ConstantOfShape producing float32 produce float16 instead."""
    if node.op_type == "Cast":
        for attr in node.attribute:
            if attr.name == "to" and attr.i == FLOAT:
                attr.i = FLOAT16
    elif node.op_type == "Constant" and elem.get(node.output[0]) == FLOAT:
        for k, attr in enumerate(node.attribute):
            if attr.name == "value":
                stats.clamped += _count_clamped(numpy_helper.to_array(attr.t))
                attr.t.CopyFrom(half_tensor(attr.t))
            elif attr.name in ("value_float", "value_floats"):
                values = np.array(helper.get_attribute_value(attr), dtype=np.float32)
                stats.clamped += _count_clamped(values)
                node.attribute.pop(k)
                node.attribute.append(helper.make_attribute("value", numpy_helper.from_array(to_half_array(values))))
                break
    elif node.op_type == "ConstantOfShape" and elem.get(node.output[0]) == FLOAT:
        value = next((a for a in node.attribute if a.name == "value"), None)
        if value is None:  # the default is a float32 zero
            node.attribute.append(helper.make_attribute("value", numpy_helper.from_array(np.zeros(1, np.float16))))
        else:
            stats.clamped += _count_clamped(numpy_helper.to_array(value.t))
            value.t.CopyFrom(half_tensor(value.t))
