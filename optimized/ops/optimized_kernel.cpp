#include "optimized/ops/optimized_kernel.hpp"

#include "onemodel/session_error.hpp"

namespace onemodel::opt {
namespace {
thread_local std::uint64_t t_fallbacks = 0;
}  // namespace

std::uint64_t OptimizedKernel::fallbacks_on_this_thread() noexcept { return t_fallbacks; }

void OptimizedKernel::run_reference(RunContext& context) const {
  ++t_fallbacks;
  reference_->run(context);
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
  in_place_input = reference_->in_place_input;
  view_of_input = reference_->view_of_input;
  outputs_data_dependent = reference_->outputs_data_dependent;
}

}  // namespace onemodel::opt
