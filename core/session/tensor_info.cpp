#include "core/session/tensor_info.hpp"

#include <string>

#include "core/graph/packed_value.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {

namespace {

ValueKind kind_of(IrType::Kind kind) {
  switch (kind) {
    case IrType::Kind::Tensor:
    case IrType::Kind::None: return ValueKind::Tensor;
    case IrType::Kind::Sequence: return ValueKind::Sequence;
    case IrType::Kind::Optional: return ValueKind::Optional;
    default: return ValueKind::Other;
  }
}

// The tensor type a value of this type holds: itself, a sequence's element, an optional's
// content (or its sequence's element); nullptr when not declared.
const IrType* held_tensor_type(const IrType& type) {
  if (type.kind == IrType::Kind::Tensor) return &type;
  if ((type.kind == IrType::Kind::Sequence || type.kind == IrType::Kind::Optional) && !type.inner.empty()) {
    return held_tensor_type(type.inner[0]);
  }
  return nullptr;
}

[[noreturn]] void refuse(const TensorInfo& info, const std::string& why) {
  throw SessionError(SessionErrorKind::InvalidInput, "input '" + info.name + "': " + why);
}

const char* kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::Tensor: return "a tensor";
    case ValueKind::Sequence: return "a sequence";
    case ValueKind::Optional: return "an optional";
    default: return "a value this library does not hold";
  }
}

// The element type, rank and fixed extents of one tensor the input holds.
void check_tensor(const TensorInfo& info, const Tensor& tensor, const std::string& where) {
  const auto fail = [&](const std::string& why) { refuse(info, where + why); };
  if (!tensor.defined()) fail("no tensor given");
  if (info.element_type != 0 && info.element_type != static_cast<std::int32_t>(tensor.dtype())) {
    fail("element type " + std::string(dtype_name(tensor.dtype())) + " given, the model declares " +
         std::string(onnx_type_name(info.element_type)));
  }
  if (!info.has_rank) return;
  if (static_cast<std::size_t>(tensor.rank()) != info.dims.size()) {
    fail("rank " + std::to_string(tensor.rank()) + " given, the model declares rank " +
         std::to_string(info.dims.size()));
  }
  for (std::size_t d = 0; d < info.dims.size(); ++d) {
    if (info.dims[d].kind == IrDim::Kind::Value && info.dims[d].value != tensor.shape()[static_cast<int>(d)]) {
      fail("dimension " + std::to_string(d) + " is " + std::to_string(tensor.shape()[static_cast<int>(d)]) +
           ", the model fixes it at " + std::to_string(info.dims[d].value));
    }
  }
}

void check_sequence(const TensorInfo& info, const Value& sequence, const std::string& where) {
  if (info.element_type != 0 && info.element_type != static_cast<std::int32_t>(sequence.element_type())) {
    refuse(info, where + "a sequence of " + std::string(dtype_name(sequence.element_type())) +
                     " given, the model declares " + std::string(onnx_type_name(info.element_type)));
  }
  const std::vector<Tensor>& elements = sequence.elements();
  for (std::size_t k = 0; k < elements.size(); ++k) {
    check_tensor(info, elements[k], where + "element " + std::to_string(k) + ": ");
  }
}

}  // namespace

TensorInfo tensor_info_from(const IrValueInfo& value) {
  TensorInfo info;
  info.name = value.name;
  info.kind = kind_of(value.type.kind);
  if (info.kind == ValueKind::Optional && !value.type.inner.empty()) {
    info.optional_of = kind_of(value.type.inner[0].kind);
  }
  if (const IrType* held = held_tensor_type(value.type)) {
    info.element_type = held->elem_type;
    info.has_rank = held->has_shape;
    info.dims = held->shape;
  }
  return info;
}

std::vector<TensorInfo> required_inputs(const IrGraph& graph) {
  std::vector<TensorInfo> result;
  for (const IrValueInfo& input : graph.inputs) {
    bool has_default = false;
    for (const IrTensor& initializer : graph.initializers) has_default = has_default || initializer.name == input.name;
    if (!has_default) result.push_back(tensor_info_from(input));
  }
  return result;
}

std::vector<TensorInfo> declared_outputs(const IrGraph& graph) {
  std::vector<TensorInfo> result;
  for (const IrValueInfo& output : graph.outputs) result.push_back(tensor_info_from(output));
  return result;
}

void check_input_against(const TensorInfo& info, const Tensor& tensor) {
  if (info.kind != ValueKind::Tensor) {
    refuse(info, std::string("the model declares ") + kind_name(info.kind) + "; give it as a Value through run_values");
  }
  check_tensor(info, tensor, "");
}

Value checked_input_value(const TensorInfo& info, const Value& value) {
  if (info.kind == ValueKind::Other) refuse(info, "the model declares a value this library does not hold");
  if (!value.defined()) refuse(info, "no value given");
  const Value::Kind given = value.kind();
  const auto given_name = [&] {
    return given == Value::Kind::Tensor ? "a tensor" : given == Value::Kind::Sequence ? "a sequence" : "an optional";
  };
  // An input declared without a type (element type 0, no shape) takes any value (graph-runtime.md
  // section 8: "whatever arrives is accepted").
  const bool undeclared = info.kind == ValueKind::Tensor && info.element_type == 0 && !info.has_rank;
  if (undeclared && given != Value::Kind::Tensor) return Value(pack_value(value, "input '" + info.name + "'"));
  switch (info.kind) {
    case ValueKind::Tensor:
      if (given != Value::Kind::Tensor) refuse(info, std::string(given_name()) + " given, the model declares a tensor");
      check_tensor(info, value.tensor(), "");
      return value;
    case ValueKind::Sequence:
      if (given != Value::Kind::Sequence) refuse(info, std::string(given_name()) + " given, the model declares a sequence");
      check_sequence(info, value, "");
      return Value(pack_value(value, "input '" + info.name + "'"));
    default: break;
  }
  // An optional: a tensor or a sequence given for it is an optional holding it.
  const Value optional = given == Value::Kind::Optional ? value : Value::optional(value);
  const Value::Kind held = optional.has_value() ? optional.value().kind() : optional.optional_of();
  const bool held_ok = held == (info.optional_of == ValueKind::Sequence ? Value::Kind::Sequence : Value::Kind::Tensor);
  if (!held_ok) {
    refuse(info, std::string("an optional of ") + (held == Value::Kind::Sequence ? "a sequence" : "a tensor") +
                     " given, the model declares an optional of " + kind_name(info.optional_of));
  }
  if (optional.has_value()) {
    if (held == Value::Kind::Tensor) check_tensor(info, optional.value().tensor(), "");
    else check_sequence(info, optional.value(), "");
  }
  return Value(pack_value(optional, "input '" + info.name + "'"));
}

}  // namespace onemodel
