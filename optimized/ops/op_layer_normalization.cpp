// LayerNormalization (opset 17+): normalization_override.hpp with the mean (spec/ops/norms.md
// section 3); the bits of reference/ops/op_layer_normalization.cpp in exact and fast mode.
#include "optimized/ops/normalization_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_layer_normalization(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<NormalizationOverride>(node, config, /*rms=*/false);
}

}  // namespace onemodel::opt
