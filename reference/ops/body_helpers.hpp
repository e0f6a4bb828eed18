// Shared parts of the operators holding subgraphs, If, Loop, Scan and SequenceMap
// (spec/ops/control-flow.md section 1): compiling a graph attribute into a body, where each of its
// captures lies among the node's inputs, and the checks of what a body gives back.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/packed_value.hpp"
#include "core/graph/subgraph.hpp"
#include "core/session/run_control.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel::body_ops {

struct CompiledBody {
  std::unique_ptr<Body> body;
  std::vector<std::size_t> capture_inputs;  // node input index of each capture of the body
};

// The graph attribute `name` of the node (InvalidModel when missing or not a graph).
inline const IrGraph& graph_attribute(const NodeInfo& node, const char* name) {
  const IrAttribute* attribute = node.find(name);
  if (attribute == nullptr || attribute->type != AttrType::Graph || attribute->graphs.size() != 1) {
    node.fail_invalid(std::string("attribute '") + name + "' must be a graph");
  }
  return attribute->graphs[0];
}

inline CompiledBody compile_body(const NodeInfo& node, const char* attribute) {
  const IrGraph& graph = graph_attribute(node, attribute);
  CompiledBody compiled{node.subgraphs().compile(graph, node), {}};
  // The node's inputs end with the captures of all its subgraphs (append_capture_inputs).
  const std::vector<std::string> all = node_captures(node.ir());
  const std::size_t first = declared_input_count(node.ir());
  for (const std::string& name : graph.captures) {
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (all[k] == name) compiled.capture_inputs.push_back(first + k);
    }
  }
  if (compiled.capture_inputs.size() != graph.captures.size() || node.ir().inputs.size() != first + all.size()) {
    node.fail_invalid(std::string("the captures of '") + attribute + "' are not among the node's inputs");
  }
  return compiled;
}

// The body's inputs: `formal`, then the captured values from the node's inputs.
inline std::vector<Tensor> body_inputs(const RunContext& context, const CompiledBody& compiled, std::vector<Tensor> formal) {
  for (std::size_t index : compiled.capture_inputs) formal.push_back(context.input(index).contiguous());
  return formal;
}

// A bool or numeric one-element tensor read as a condition.
inline bool read_condition(const NodeInfo& node, const Tensor& t, const char* what) {
  if (t.dtype() != DType::Bool || t.element_count() != 1) {
    node.fail_invalid(std::string(what) + " must be a bool tensor of one element, not " + std::string(dtype_name(t.dtype())) +
                      " " + t.shape().to_string());
  }
  return t.contiguous().to_vector<std::uint8_t>()[0] != 0;
}

inline Tensor bool_scalar(bool value) {
  return Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {static_cast<std::uint8_t>(value ? 1 : 0)});
}

// spec/values.md section 5: the iteration about to start must be within the session's limit.
inline void check_iteration(const NodeInfo& node, std::int64_t iteration, std::int64_t limit) {
  if (iteration >= limit) {
    throw SessionError(SessionErrorKind::ResourceExhausted,
                       node.ir().op_type + ": more than max_loop_iterations (" + std::to_string(limit) + ") iterations",
                       node.name());
  }
}

// Between iterations: a cancelled run or a passed deadline stops the node (spec/session.md
// section 8).
inline void check_stop(const RunContext& context) {
  if (const RunControl* control = context.run_control()) control->check_stop();
}

// What a declared type says a value is. spec/values.md section 3: a value disagreeing with the
// type the model declares (kind, element type, rank) is InvalidModel naming the node.
inline void check_declared(const NodeInfo& node, const IrType* declared, const Tensor& value, const std::string& what) {
  if (declared == nullptr) return;
  const bool packed = is_packed_value(value);
  const auto fail = [&](const std::string& why) { node.fail_invalid(what + ": " + why); };
  switch (declared->kind) {
    case IrType::Kind::Tensor:
      if (packed && !(declared->elem_type == static_cast<std::int32_t>(DType::U8) && (!declared->has_shape || declared->shape.size() == 1))) {
        fail("a sequence or optional where the model declares a tensor");
      }
      if (declared->elem_type != 0 && declared->elem_type != static_cast<std::int32_t>(value.dtype())) {
        fail("element type " + std::string(dtype_name(value.dtype())) + ", the model declares " +
             std::string(onnx_type_name(declared->elem_type)));
      }
      if (declared->has_shape && declared->shape.size() != static_cast<std::size_t>(value.rank())) {
        fail("rank " + std::to_string(value.rank()) + ", the model declares rank " + std::to_string(declared->shape.size()));
      }
      break;
    case IrType::Kind::Sequence:
    case IrType::Kind::Optional:
      if (!packed) fail("a tensor where the model declares a sequence or an optional");
      break;
    default: break;
  }
}

// A scan output no iteration produced (spec/ops/control-flow.md sections 4 and 5): empty along
// the stacked axis, of the body output's declared element type (float when undeclared), and with
// the declared extents of a slice when the body fixes them all (as ONNX Runtime gives it), else
// `[0]` (graph-runtime.md section 8). `axis` is where the stacked axis goes (0 for Loop).
inline std::pair<DType, Shape> empty_scan_output(const IrType& declared, std::int64_t axis) {
  const DType type = declared.kind == IrType::Kind::Tensor && dtype_is_stored(declared.elem_type)
                         ? static_cast<DType>(declared.elem_type)
                         : DType::F32;
  bool fixed = declared.kind == IrType::Kind::Tensor && declared.has_shape;
  std::vector<std::int64_t> extents;
  if (fixed) {
    for (const IrDim& d : declared.shape) {
      fixed = fixed && d.kind == IrDim::Kind::Value && d.value >= 0 && d.value <= kMaxElements;
      extents.push_back(d.value);
    }
  }
  const auto rank = static_cast<std::int64_t>(extents.size());
  if (!fixed || rank + 1 > kMaxRank) return {type, Shape{0}};
  const std::int64_t at = axis < 0 ? axis + rank + 1 : axis;
  if (at < 0 || at > rank) return {type, Shape{0}};
  extents.insert(extents.begin() + at, 0);
  return {type, Shape(std::span<const std::int64_t>(extents))};
}

// Two declarations of the same value that cannot both hold (kind, element type or rank differ).
inline bool types_disagree(const IrType& a, const IrType& b) {
  if (a.kind == IrType::Kind::None || b.kind == IrType::Kind::None) return false;
  if (a.kind != b.kind) return true;
  if (a.kind == IrType::Kind::Tensor) {
    if (a.elem_type != 0 && b.elem_type != 0 && a.elem_type != b.elem_type) return true;
    return a.has_shape && b.has_shape && a.shape.size() != b.shape.size();
  }
  if (!a.inner.empty() && !b.inner.empty()) return types_disagree(a.inner[0], b.inner[0]);
  return false;
}

}  // namespace onemodel::body_ops
