// InstanceNormalization (opset 6+): spec/ops/norms.md section 4, the rows of the LayerNormalization
// kernels (optimized/kernels/layernorm/) with one scalar scale and bias per channel
// (LayerNormArgs::param_channels): a row is one (sample, channel) plane, its moments and its four
// rounded operations per element those of reference/ops/op_instance_normalization.cpp, so the bits
// are the reference's in exact and fast mode, on every path and thread count. float64 and strided
// tensors run the reference (wav2vec2's feature encoder spent a tenth of its time in the reference's
// scalar loop over 512 planes of 3199 values).
#include "optimized/kernels/layernorm/layernorm.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::opt {
namespace {

class InstanceNormalizationOverride final : public OptimizedKernel {
 public:
  InstanceNormalizationOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config), epsilon_(node.get_float("epsilon", 1e-5f)) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    const Tensor& scale = context.input(1);
    const Tensor& bias = context.input(2);
    // infer() (the reference's) has checked one element type for all three, rank >= 2 and
    // scale and B of shape [C].
    if (x.dtype() != DType::F32 || !x.is_contiguous() || !scale.is_contiguous() || !bias.is_contiguous()) {
      return run_reference(context);
    }
    const Shape& shape = x.shape();
    const std::int64_t channels = shape[1];
    const std::int64_t rows = norms::extent_product(shape, 0, 2);
    const std::int64_t cols = norms::extent_product(shape, 2, shape.rank());
    if (rows * cols == 0 || channels <= 0) return run_reference(context);
    LayerNormArgs a;
    a.x = x.data<float>().data();
    a.y = context.output(0).mutable_data<float>().data();
    a.rows = static_cast<std::size_t>(rows);
    a.cols = static_cast<std::size_t>(cols);
    a.scale = scale.data<float>().data();
    a.bias = bias.data<float>().data();
    a.param_channels = static_cast<std::size_t>(channels);
    a.epsilon = epsilon_;
    layer_norm_f32(kernel_context(context), a);
  }

 private:
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_instance_normalization(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<InstanceNormalizationOverride>(node, config);
}

}  // namespace onemodel::opt
