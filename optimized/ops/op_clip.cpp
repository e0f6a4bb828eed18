// Clip: v = x; v < lo -> lo; v > hi -> hi (spec/ops/elementwise.md section 6), the vectorized
// float32 kernel, bits of reference/ops/op_clip.cpp. An omitted bound is the finite extreme
// (+-3.4028235e38), not infinity. Opsets 6 to 10 take the bounds from the attributes min and max;
// from 11 from the optional one-element inputs 1 and 2 (a bound of another size goes to the
// reference, which reports it).
#include <limits>

#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {
namespace {

constexpr float kLowest = std::numeric_limits<float>::lowest();
constexpr float kHighest = std::numeric_limits<float>::max();

class Clip6 final : public UnaryF32Override {
 public:
  using UnaryF32Override::UnaryF32Override;
};

class Clip11 final : public UnaryF32Override {
 public:
  Clip11(const NodeInfo& node, const OptimizedConfig& config) : UnaryF32Override(node, config, ew::UnaryArgs{}) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::F32 || !x.is_contiguous()) return run_reference(context);
    ew::UnaryArgs args{ew::UnaryOp::Clip, kLowest, kHighest};
    for (std::size_t i = 1; i < 3; ++i) {
      if (!context.has_input(i)) continue;
      const Tensor& bound = context.input(i);
      if (bound.dtype() != DType::F32 || bound.element_count() != 1 || !bound.is_contiguous()) {
        return run_reference(context);
      }
      const float value = bound.data<float>()[0];
      (i == 1 ? args.alpha : args.beta) = value;
    }
    run_with(context, args);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_clip_6(const NodeInfo& node, const OptimizedConfig& config) {
  const float lo = node.has("min") ? node.get_float("min", 0.0f) : kLowest;
  const float hi = node.has("max") ? node.get_float("max", 0.0f) : kHighest;
  return std::make_unique<Clip6>(node, config, ew::UnaryArgs{ew::UnaryOp::Clip, lo, hi});
}

std::unique_ptr<OpKernel> make_optimized_clip_11(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<Clip11>(node, config);
}

}  // namespace onemodel::opt
