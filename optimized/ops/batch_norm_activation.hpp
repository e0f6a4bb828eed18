// The activation a BatchNormalization override can carry once `batchnorm-activation`
// (spec/optimized-engine.md section 2; docs/design.md "BatchNormalization and its activation in one
// pass") has fused a BatchNormalization with the activation reading it: the float32 kernel applies
// it to each value right after x * a + shift, in registers for Relu, LeakyRelu and Clip
// (batch_norm.hpp, ew::scale_shift_activation_f32_run), with the activation override's own
// element-wise function; every case the override hands to the reference kernel runs the activation
// node's own kernel on the reference's output, in place, as the unfused graph would.
#pragma once

#include <memory>
#include <string>

#include "optimized/ops/conv_activation.hpp"  // FusedActivation, shared with the Conv override
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

// A BatchNormalization override for `node` whose output is the activation's output. The
// activation's round_first must be F32 (the pass does not run in models with half values).
std::unique_ptr<OpKernel> make_optimized_batch_normalization_with_activation(const NodeInfo& node,
                                                                             const OptimizedConfig& config,
                                                                             FusedActivation activation);
// What a BatchNormalization override carries, for run profiles: "BatchNormalization+activation",
// or "BatchNormalization" (no activation, or not that override).
std::string batch_norm_fused_label(const OpKernel& kernel);

}  // namespace onemodel::opt
