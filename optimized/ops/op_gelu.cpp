// Gelu (opset 20): erf form (approximate = "none") or tanh form ("tanh"), the vectorized exact
// functions of spec/exact-transcendentals.md section 7, bits of reference/ops/op_gelu.cpp. The
// reference factory (run by OptimizedKernel) has already refused any other `approximate`.
#include <string>

#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_gelu(const NodeInfo& node, const OptimizedConfig& config) {
  const bool tanh_form = node.get_string("approximate", "none") == "tanh";
  return std::make_unique<UnaryF32Override>(node, config,
                                            ew::UnaryArgs{tanh_form ? ew::UnaryOp::GeluTanh : ew::UnaryOp::GeluErf});
}

}  // namespace onemodel::opt
