// Resize on float32 rank-4 input resampling H and W (spec/ops/products-conv.md section 10):
// resize_2d_f32 reading the input in place and writing the planned output, with the reference's
// tap tables (resize_plan.hpp), so the bits are the reference's in both modes. The plan is built
// in prepare() when scales/sizes are constants (the detectors' 2x upsampling), so a warm run does
// not allocate. Cubic, tf_crop_and_resize, the axes attribute, not_larger/not_smaller, other
// ranks and types, resampled N or C, and empty inputs run the reference kernel.
#include <memory>

#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/ops/resize_plan.hpp"

namespace onemodel::opt {
namespace {

using resize_override::Plan;

class ResizeOverride final : public OptimizedKernel {
 public:
  ResizeOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config), attributes_(resize_override::read_attributes(node)) {}

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    if (!attributes_.served) return nullptr;
    std::array<const Tensor*, 4> values{};
    std::array<bool, 4> unknown{};
    for (std::size_t i = 1; i < context.input_count() && i < 4; ++i) {
      if (!context.has_input(i)) continue;
      values[i] = context.input_value(i);
      unknown[i] = values[i] == nullptr;
    }
    auto plan = std::make_shared<Plan>(
        resize_override::build_plan(context.node(), attributes_, context.input_shape(0), values, unknown));
    if (!plan->served) return nullptr;
    return plan;
  }

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (!attributes_.served || x.dtype() != DType::F32 || x.shape().rank() != 4 || !x.is_contiguous()) {
      return run_reference(context);
    }
    const Plan* plan = static_cast<const Plan*>(context.state());
    Plan local;
    if (plan == nullptr || !plan->matches(x.shape())) {
      // scales/sizes not constant (or no plan): every value is known now.
      std::array<const Tensor*, 4> values{};
      for (std::size_t i = 1; i < context.input_count() && i < 4; ++i) {
        if (context.has_input(i)) values[i] = &context.input(i);
      }
      local = resize_override::build_plan(context.node(), attributes_, x.shape(), values, {});
      plan = &local;
    }
    if (!plan->served) return run_reference(context);
    const Tensor& y = context.output(0);
    if (y.element_count() == 0) return;
    resize::resize_2d_f32(kernel_context(context), plan->shape, plan->h_taps.data(), plan->w_taps.data(),
                          x.data<float>().data(), y.mutable_data<float>().data());
  }

 private:
  resize_override::Attributes attributes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_resize(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ResizeOverride>(node, config);
}

}  // namespace onemodel::opt
