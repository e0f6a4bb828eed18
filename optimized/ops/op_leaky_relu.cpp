// LeakyRelu: x < 0 ? alpha * x : x (alpha default 0.01), the vectorized float32 kernel, bits of
// reference/ops/op_leaky_relu.cpp (spec/ops/elementwise.md section 8).
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_leaky_relu(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config,
                                            ew::UnaryArgs{ew::UnaryOp::LeakyRelu, node.get_float("alpha", 0.01f)});
}

}  // namespace onemodel::opt
