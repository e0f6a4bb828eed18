// The shared shape of the LayerNormalization and RMSNormalization overrides
// (op_layer_normalization.cpp, op_rms_normalization.cpp): the vectorized rows of
// optimized/kernels/layernorm/ (spec/ops/norms.md section 3) give the bits of the reference kernels
// in exact and fast mode, on every path and thread count. Scale and B with fewer elements than the
// normalized extent are expanded first (as the reference does); non-float32 or strided inputs run
// the reference.
#pragma once

#include <vector>

#include "optimized/kernels/layernorm/layernorm.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::opt {

class NormalizationOverride final : public OptimizedKernel {
 public:
  // rms: RMSNormalization (mean = +0, no bias, no statistics outputs).
  NormalizationOverride(const NodeInfo& node, const OptimizedConfig& config, bool rms)
      : OptimizedKernel(node, config),
        axis_(node.get_int("axis", -1)),
        epsilon_(node.get_float("epsilon", 1e-5f)),
        rms_(rms) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    const bool has_bias = !rms_ && context.has_input(2);
    if (x.dtype() != DType::F32 || !x.is_contiguous() || context.input(1).dtype() != DType::F32 ||
        (has_bias && context.input(2).dtype() != DType::F32)) {
      return run_reference(context);
    }
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t rows = norms::extent_product(shape, 0, axis);
    const std::int64_t cols = norms::extent_product(shape, axis, shape.rank());
    if (rows * cols == 0) return run_reference(context);
    // A parameter already holding one value per column is used in place; else it is expanded.
    std::vector<float> scale_expanded, bias_expanded;
    const float* scale = parameter(context.input(1), shape, axis, cols, scale_expanded);
    const float* bias = has_bias ? parameter(context.input(2), shape, axis, cols, bias_expanded) : nullptr;
    LayerNormArgs a;
    a.x = x.data<float>().data();
    a.y = context.output(0).mutable_data<float>().data();
    a.rows = static_cast<std::size_t>(rows);
    a.cols = static_cast<std::size_t>(cols);
    a.scale = scale;
    a.bias = bias;
    a.epsilon = epsilon_;
    a.rms = rms_;
    a.mean = !rms_ && context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
    a.inv_std_dev = !rms_ && context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
    layer_norm_f32(kernel_context(context), a);
  }

 private:
  static const float* parameter(const Tensor& p, const Shape& shape, int axis, std::int64_t cols,
                                std::vector<float>& expanded) {
    if (p.element_count() == cols && p.is_contiguous()) return p.data<float>().data();
    expanded = norms::expand_to_normalized(p, shape, axis);
    return expanded.data();
  }

  std::int64_t axis_;
  float epsilon_;
  bool rms_;
};

}  // namespace onemodel::opt
