// The shared shape of the Softmax and LogSoftmax overrides (op_softmax.cpp, op_log_softmax.cpp):
// float32 contiguous inputs run the row kernels of optimized/kernels/softmax/ with the walk of
// reference/ops/softmax_helpers.hpp (spec/ops/norms.md section 5): up to opset 12 the input is
// coerced to 2-D at `axis` (default 1); from opset 13 the operator works along one axis
// (default -1), a non-last axis being gathered into rows in scratch memory and scattered back.
// Exact mode gives the reference kernel's bits; fast mode uses the fast exponential
// (kernels-attention.md, "Softmax"). Everything else runs the reference kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/softmax/softmax.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::opt {

class SoftmaxFamilyOverride final : public OptimizedKernel {
 public:
  // log_fn == nullptr: Softmax; else LogSoftmax with that log.
  SoftmaxFamilyOverride(const NodeInfo& node, const OptimizedConfig& config, bool coerce_2d, float (*log_fn)(float))
      : OptimizedKernel(node, config),
        axis_(node.get_int("axis", coerce_2d ? 1 : -1)),
        coerce_2d_(coerce_2d),
        log_fn_(log_fn) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::F32 || !x.is_contiguous()) return run_reference(context);
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank(), coerce_2d_);
    const std::int64_t outer = norms::extent_product(shape, 0, axis);
    const std::int64_t n = coerce_2d_ ? norms::extent_product(shape, axis, shape.rank()) : shape[axis];
    const std::int64_t inner = coerce_2d_ ? 1 : norms::extent_product(shape, axis + 1, shape.rank());
    if (outer * n * inner == 0) return;
    const KernelContext kc = kernel_context(context);
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    if (inner == 1) return rows(kc, in, out, static_cast<std::size_t>(outer), static_cast<std::size_t>(n));
    // A non-last axis: rows (o, i) gathered as [outer][inner][n], normalised, scattered back.
    const Tensor moved = context.scratch(DType::F32, Shape{outer * inner * n});
    float* m = moved.mutable_data<float>().data();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < inner; ++i) m[(o * inner + i) * n + j] = in[(o * n + j) * inner + i];
    rows(kc, m, m, static_cast<std::size_t>(outer * inner), static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < inner; ++i) out[(o * n + j) * inner + i] = m[(o * inner + i) * n + j];
  }

 private:
  void rows(const KernelContext& kc, const float* in, float* out, std::size_t rows, std::size_t cols) const {
    if (log_fn_ == nullptr) softmax_rows_f32(kc, in, out, rows, cols);
    else log_softmax_rows_f32(kc, in, out, rows, cols, log_fn_);
  }

  std::int64_t axis_;
  bool coerce_2d_;
  float (*log_fn_)(float);
};

}  // namespace onemodel::opt
