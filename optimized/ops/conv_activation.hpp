// The activation a Conv override can carry once `conv-activation` (graph-passes.md) has fused a
// Conv with the activation reading it: the float32 kernels apply it on each finished tile (im2col
// + product) or output plane (depthwise) through the activation override's own element-wise
// kernel; every other case runs the reference Conv and then the activation node's own kernel.
#pragma once

#include <memory>
#include <vector>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

struct FusedActivation {
  std::unique_ptr<OpKernel> kernel;  // the activation node's kernel
  NodeInfo info;                     // the activation node
  ew::UnaryArgs args;                // what its override computes
  std::vector<Tensor> extra_inputs;  // its inputs after the first (Clip's constant bounds)
  // F16 or BF16 in a model with half values (spec/half-precision.md section 8.6): the Conv's
  // binary32 result is rounded through this type before the activation, as the adapter stores it
  // between the two nodes; the fused node is then wrapped by the adapter itself.
  DType round_first = DType::F32;
};

// A Conv override for `conv` whose output is the activation's output.
std::unique_ptr<OpKernel> make_optimized_conv_with_activation(const NodeInfo& conv, const OptimizedConfig& config,
                                                               FusedActivation activation);

}  // namespace onemodel::opt
