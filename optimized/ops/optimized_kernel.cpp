#include "optimized/ops/optimized_kernel.hpp"

#include <vector>

#include "onemodel/half.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel::opt {
namespace {
thread_local std::uint64_t t_fallbacks = 0;
}  // namespace

std::uint64_t OptimizedKernel::fallbacks_on_this_thread() noexcept { return t_fallbacks; }

void OptimizedKernel::infer(InferContext& context) const {
  if (!accepts_compact_weights || !context.input_compact(1)) {
    reference_->infer(context);
    return;
  }
  std::vector<InferInput> shown(context.inputs().begin(), context.inputs().end());
  shown[1].type = DType::F32;
  shown[1].value = nullptr;
  shown[1].compact = false;
  context.infer_as(shown, [&](InferContext& inner) { reference_->infer(inner); });
}

bool OptimizedKernel::has_compact_weight(const RunContext& context) const {
  if (!accepts_compact_weights || !context.has_input(1) || !context.has_input(0)) return false;
  const DType w = context.input(1).dtype();
  return context.input(0).dtype() == DType::F32 && (w == DType::F16 || w == DType::BF16);
}

void OptimizedKernel::run_reference(RunContext& context) const {
  ++t_fallbacks;
  if (!has_compact_weight(context)) {
    reference_->run(context);
    return;
  }
  const Tensor& weight = context.input(1);
  const Tensor dense = weight.contiguous();
  Tensor widened = context.scratch(DType::F32, weight.shape());
  const std::span<const std::uint16_t> bits = dense.data<std::uint16_t>();
  if (weight.dtype() == DType::F16) {
    half_bits_to_floats(bits, widened.mutable_data<float>());
  } else {
    bfloat16_bits_to_floats(bits, widened.mutable_data<float>());
  }
  std::vector<Tensor> inputs(context.input_count());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (context.has_input(i)) inputs[i] = i == 1 ? widened : context.input(i);
  }
  RunContext widened_context = context.with_inputs(inputs);
  reference_->run(widened_context);
}

OptimizedKernel::OptimizedKernel(const NodeInfo& node, const OptimizedConfig& config) : config_(config) {
  const IrNode& ir = node.ir();
  const OpDef* def = find_op(ir.domain, ir.op_type, node.opset());
  if (def == nullptr) {
    throw SessionError(SessionErrorKind::UnsupportedOperator,
                       ir.op_type + " (opset " + std::to_string(node.opset()) + ") has no reference kernel",
                       node.name());
  }
  reference_ = def->factory(node);
  supports_exact = reference_->supports_exact;
  float64_exact = reference_->float64_exact;
  draws_random = reference_->draws_random;
  string_elements = reference_->string_elements;
  in_place_input = reference_->in_place_input;
  in_place_second = reference_->in_place_second;
  view_of_input = reference_->view_of_input;
  outputs_data_dependent = reference_->outputs_data_dependent;
}

}  // namespace onemodel::opt
