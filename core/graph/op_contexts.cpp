#include <cmath>
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "core/session/run_control.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

[[noreturn]] void contract_violation(const NodeInfo& node, const std::string& message) {
  // A kernel asked for something its node does not have: a defect of the kernel or a model that
  // omits a required operand; both are reported against the node.
  throw SessionError(SessionErrorKind::InvalidModel, node.ir().op_type + ": " + message, node.name());
}

}  // namespace

DType InferContext::input_type(std::size_t i) const {
  if (!has_input(i)) contract_violation(node_, "input " + std::to_string(i) + " is required");
  return inputs_[i].type;
}

const Shape& InferContext::input_shape(std::size_t i) const {
  if (!has_input(i)) contract_violation(node_, "input " + std::to_string(i) + " is required");
  return inputs_[i].shape;
}

const Tensor* InferContext::input_value(std::size_t i) const {
  const Tensor* value = known_value(i);
  if (value != nullptr && i < from_caller_.size() && from_caller_[i] != 0) read_caller_value_ = true;
  return value;
}

const Tensor* InferContext::known_value(std::size_t i) const {
  if (!has_input(i)) contract_violation(node_, "input " + std::to_string(i) + " is required");
  return inputs_[i].value;
}

namespace {

[[noreturn]] void refuse_string_element(const NodeInfo& node, const char* side, std::size_t i) {
  throw SessionError(SessionErrorKind::Unsupported,
                     node.ir().op_type + ": " + side + " " + std::to_string(i) +
                         " has element type String, which this operator does not support",
                     node.name());
}

}  // namespace

void check_string_inputs(const OpKernel& kernel, const NodeInfo& node, std::span<const Tensor> inputs) {
  if (kernel.string_elements) return;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].dtype() == DType::String) refuse_string_element(node, "input", i);
  }
}

void infer_node(const OpKernel& kernel, InferContext& context) {
  // spec/tensors.md section 8: only kernels that say so see strings.
  if (!kernel.string_elements) {
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      if (context.has_input(i) && context.input_type(i) == DType::String) refuse_string_element(context.node(), "input", i);
    }
  }
  try {
    kernel.infer(context);
  } catch (const SessionError& e) {
    // spec/errors.md section 3.2: the value was the caller's, so the refusal is of the input,
    // as Gather's out-of-range indices are (issue 11, defect 8).
    if (e.kind() != SessionErrorKind::InvalidModel || !context.read_caller_value()) throw;
    throw SessionError(SessionErrorKind::InvalidInput, e.message() + " (the value comes from the graph inputs)",
                       e.node_name(), e.operators());
  }
  if (!kernel.string_elements) {
    for (std::size_t i = 0; i < context.output_count(); ++i) {
      if (context.output_wanted(i) && context.output_is_set(i) && context.output_type(i) == DType::String) {
        refuse_string_element(context.node(), "output", i);
      }
    }
  }
  // spec/exact-mode.md section 4: the types are known only now, so this refusal comes when the
  // node is shaped (at plan creation in the optimized engine, at the run in the reference engine),
  // not with the whole-model list of session creation.
  const NodeInfo& node = context.node();
  if (!kernel.float64_exact && node.exact() && context.has_input(0) && context.input_type(0) == DType::F64) {
    const IrNode& ir = node.ir();
    const std::string op = ir.domain.empty() || ir.domain == "ai.onnx" ? ir.op_type : ir.domain + "." + ir.op_type;
    throw SessionError(SessionErrorKind::ExactModeUnavailable,
                       "exact mode is not available for: " + op +
                           " (float64: the library's exact transcendental functions are binary32 only)",
                       {}, {op});
  }
}

void InferContext::set_output(std::size_t i, DType type, const Shape& shape) {
  if (i >= outputs_.size()) return;  // an output the model does not name
  outputs_[i].set = true;
  outputs_[i].type = type;
  outputs_[i].shape = shape;
  outputs_[i].constant = false;
}

void InferContext::set_constant_output(std::size_t i, Tensor value) {
  if (i >= outputs_.size()) return;
  outputs_[i].set = true;
  outputs_[i].type = value.dtype();
  outputs_[i].shape = value.shape();
  outputs_[i].constant = true;
  outputs_[i].value = std::move(value);
}

void InferContext::require_type(std::size_t i, std::initializer_list<DType> allowed) const {
  const DType type = input_type(i);
  for (DType t : allowed) {
    if (t == type) return;
  }
  throw SessionError(SessionErrorKind::Unsupported,
                     node_.ir().op_type + ": input " + std::to_string(i) + " has element type " +
                         std::string(dtype_name(type)) + ", which this operator does not support",
                     node_.name());
}

const Tensor& RunContext::input(std::size_t i) const {
  if (!has_input(i)) contract_violation(node_, "input " + std::to_string(i) + " is required");
  return inputs_[i];
}

bool RunContext::output_wanted(std::size_t i) const noexcept {
  return i < node_.ir().outputs.size() && !node_.ir().outputs[i].empty();
}

const Tensor& RunContext::output(std::size_t i) const {
  if (i >= outputs_.size() || !outputs_[i].defined()) {
    contract_violation(node_, "output " + std::to_string(i) + " was not allocated");
  }
  return outputs_[i];
}

const Tensor& RunContext::allocate_output(std::size_t i, DType type, const Shape& shape) {
  if (i >= outputs_.size()) contract_violation(node_, "output " + std::to_string(i) + " does not exist");
  outputs_[i] = memory_ != nullptr ? memory_->allocate(type, shape) : Tensor::empty(type, shape);
  return outputs_[i];
}

void RunContext::adopt_output(std::size_t i, Tensor tensor) {
  if (i >= outputs_.size()) contract_violation(node_, "output " + std::to_string(i) + " does not exist");
  if (RunControl* control = run_control()) control->charge(tensor.dtype(), tensor.shape(), "a value of a subgraph's node");
  outputs_[i] = std::move(tensor);
}

Tensor RunContext::scratch(DType type, const Shape& shape) const {
  return memory_ != nullptr ? memory_->allocate(type, shape) : Tensor::empty(type, shape);
}

float canonical_nan_f32(float value) noexcept {
  if (!std::isnan(value)) return value;
  const std::uint32_t bits = 0x7FC00000u;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

}  // namespace onemodel
