// The activation a Conv override can carry once `conv-activation` (graph-passes.md) has fused a
// Conv with the activation reading it: the float32 kernels apply it on each finished tile (im2col
// + product) or output plane (depthwise) through the activation override's own element-wise
// kernel; every other case runs the reference Conv and then the activation node's own kernel.
// Before the activation a Conv can also carry a BatchNormalization in inference form
// (`conv-batchnorm-epilogue`, graph-passes.md; docs/design.md "BatchNormalization epilogue"):
// per output channel the factor and shift the BatchNormalization kernel would compute, applied to
// each finished tile or plane with that kernel's plane function (the same bits in both modes).
#pragma once

#include <memory>
#include <string>
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

// A BatchNormalization absorbed by its Conv: per output channel a and shift
// (batchnorm::channel_affine on the node's constant statistics and epsilon).
struct FusedNorm {
  std::vector<float> scale;  // a
  std::vector<float> shift;
};

// graph-passes.md `conv-residual` (docs/design.md "Residual Add"): the Add node reading the
// Conv's result and a residual R (the fused node's input 3), kept to state the output's shape and
// to run when R is not of the output's shape and type.
struct FusedResidual {
  std::unique_ptr<OpKernel> add_kernel;  // the Add node's kernel
  NodeInfo add_info;                     // the Add node
  bool residual_first = false;           // Add(R, conv) rather than Add(conv, R)
};

// A Conv override for `conv` whose output is the activation's output.
std::unique_ptr<OpKernel> make_optimized_conv_with_activation(const NodeInfo& conv, const OptimizedConfig& config,
                                                               FusedActivation activation);
// A Conv override whose output is the normalization's (`norm`, not null) output, or with
// `activation` the activation's.
std::unique_ptr<OpKernel> make_optimized_conv_with_norm(const NodeInfo& conv, const OptimizedConfig& config,
                                                         std::shared_ptr<const FusedNorm> norm,
                                                         std::unique_ptr<FusedActivation> activation);
// A Conv override for `conv` reading X, W, B (or omitted) and R, whose output is the Add's (or,
// with `activation`, the activation's after the Add). `norm` (or null): a normalization the Conv
// took before (`conv-batchnorm-epilogue`), applied before the Add.
std::unique_ptr<OpKernel> make_optimized_conv_with_residual(const NodeInfo& conv, const OptimizedConfig& config,
                                                             FusedResidual residual,
                                                             std::shared_ptr<const FusedNorm> norm,
                                                             std::unique_ptr<FusedActivation> activation);
// The normalization a Conv override carries, or null (no normalization, or not a Conv override).
std::shared_ptr<const FusedNorm> conv_fused_norm(const OpKernel& kernel);
// What a Conv override carries (read by `nchwc-layout`, which moves it into its own node):
// is_override false for any other kernel; null where a part is absent.
struct ConvOverrideParts {
  bool is_override = false;
  bool has_norm = false;
  const FusedActivation* activation = nullptr;
  const FusedResidual* residual = nullptr;
};
ConvOverrideParts conv_override_parts(const OpKernel& kernel);
// What a fused Conv override carries, for run profiles: "Conv+activation",
// "Conv+BatchNormalization" or "Conv+BatchNormalization+activation", with "+residual" before
// "+activation" for a `conv-residual` node ("Conv" for a plain one).
std::string conv_fused_label(const OpKernel& kernel);

}  // namespace onemodel::opt
