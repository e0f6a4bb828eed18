// MatMulIntegerToFloat, the node `matmul-integer-fusion` makes (spec-source int8.md, Operators:
// "MatMulInteger -> Cast(float) -> Mul(scale)[-> Add(bias)] evaluated in one kernel:
// float(acc) * scale (+ bias), the same float32 operations in the same order"; graph-passes.md,
// bits preserved). The integer product runs on the int8 product kernel (optimized/kernels/int8gemm)
// one block of int8::kMc rows at a time, and each finished block is finished at once: every
// int32 becomes float32 as Cast converts it (one rounding to nearest even), then the Mul and the
// Add run through the element-wise kernel functions the Mul and Add overrides call
// (ew::binary_f32_run, the same IEEE operation per element and the same NaN store in both modes),
// with the operands in the order the graph gives them. So every output element has the bits of
// the separate nodes on every path, thread count and mode.
//
// Fused inputs: 0 A, 1 B, 2 A's zero point, 3 B's zero point (as MatMulInteger numbers them, so
// the integer-product plan helpers read them in place), 4 the scale, 5 the bias (-1 without an
// Add). The node keeps the replaced nodes' kernels as stages: infer() chains their infer() (shapes,
// types and errors are theirs), and whatever the one kernel does not serve (a K above the
// kernel's bound, a scale or bias that is not float32 or not a scalar or a vector along the last
// axis, zero points of another form, a 1-D B) runs the stages one after the other, exactly as the
// unfused graph runs them.
#pragma once

#include <memory>
#include <vector>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/passes/linear_op.hpp"

namespace onemodel::opt {

struct MatMulIntegerToFloatSpec {
  bool scale_first = false;  // Mul(scale, cast) rather than Mul(cast, scale)
  bool has_bias = false;
  bool bias_first = false;   // Add(bias, product) rather than Add(product, bias)
};

class MatMulIntegerToFloat final : public OpKernel {
 public:
  // Fused input numbers of the scale and the bias.
  static constexpr std::size_t kScale = 4, kBias = 5;

  // `stages`: MatMulInteger, Cast, Mul[, Add] (LinearStage: each input -1, kPrevious or a fused
  // input number).
  MatMulIntegerToFloat(std::vector<LinearStage> stages, MatMulIntegerToFloatSpec spec, const OptimizedConfig& config)
      : stages_(std::move(stages)), spec_(spec), config_(config) {}

  void infer(InferContext& context) const override;
  // The integer-product plan (integer_product_plan.hpp): B packed once when it is constant.
  std::shared_ptr<const void> prepare(const InferContext& context) const override;
  void run(RunContext& context) const override;

  std::size_t stage_count() const noexcept { return stages_.size(); }

 private:
  void run_stages(RunContext& context) const;

  std::vector<LinearStage> stages_;
  MatMulIntegerToFloatSpec spec_;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
