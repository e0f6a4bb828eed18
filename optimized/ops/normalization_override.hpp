// The shared shape of the LayerNormalization and RMSNormalization overrides
// (op_layer_normalization.cpp, op_rms_normalization.cpp): the vectorized rows of
// optimized/kernels/layernorm/ (spec/ops/norms.md section 3) give the bits of the reference kernels
// in exact and fast mode, on every path and thread count. Scale and B broadcast to the whole input
// (section 3); unless one already holds one value per column, it is expanded first as the
// reference does, to one row shared by every row or to one row per row (row stride cols).
// Non-float32 or strided inputs run the reference.
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
    norms::ExpandedParameter scale_expanded, bias_expanded;
    std::size_t scale_stride = 0, bias_stride = 0;
    const float* scale = parameter(context.input(1), shape, axis, cols, scale_expanded, scale_stride);
    const float* bias =
        has_bias ? parameter(context.input(2), shape, axis, cols, bias_expanded, bias_stride) : nullptr;
    LayerNormArgs a;
    a.x = x.data<float>().data();
    a.y = context.output(0).mutable_data<float>().data();
    a.rows = static_cast<std::size_t>(rows);
    a.cols = static_cast<std::size_t>(cols);
    a.scale = scale;
    a.bias = bias;
    a.scale_row_stride = scale_stride;
    a.bias_row_stride = bias_stride;
    a.epsilon = epsilon_;
    a.rms = rms_;
    a.mean = !rms_ && context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
    a.inv_std_dev = !rms_ && context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
    layer_norm_f32(kernel_context(context), a);
  }

 private:
  // The element count alone does not tell: [4, 1, 1] on [4, 1, 4] has cols elements, one per row.
  static const float* parameter(const Tensor& p, const Shape& shape, int axis, std::int64_t cols,
                                norms::ExpandedParameter& expanded, std::size_t& row_stride) {
    if (p.element_count() == cols && p.is_contiguous() && !norms::varies_across_rows(p.shape(), shape, axis)) {
      row_stride = 0;
      return p.data<float>().data();
    }
    expanded = norms::expand_parameter(p, shape, axis);
    row_stride = static_cast<std::size_t>(expanded.row_stride);
    return expanded.values.data();
  }

  std::int64_t axis_;
  float epsilon_;
  bool rms_;
};

}  // namespace onemodel::opt
