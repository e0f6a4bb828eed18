// RMSNormalization (opset 23+): normalization_override.hpp with mean = +0 (spec/ops/norms.md
// section 3); the bits of reference/ops/op_rms_normalization.cpp in exact and fast mode.
#include "optimized/ops/normalization_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_rms_normalization(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<NormalizationOverride>(node, config, /*rms=*/true);
}

}  // namespace onemodel::opt
