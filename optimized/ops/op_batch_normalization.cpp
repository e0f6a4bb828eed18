// BatchNormalization, inference form, on float32 (spec/ops/products-conv.md section 9):
// batch_norm_f32 reading X and the four parameter vectors in place, the reference's bits in both
// modes (optimized/kernels/batchnorm/batch_norm.hpp). Other types, views, training_mode = 1 (batch
// statistics, section 9.1) and any wanted running-statistics output run the reference kernel.
// With a fused activation (`batchnorm-activation`, batch_norm_activation.hpp) the kernel applies it
// to each value after the normalization; what runs the reference kernel is followed by the
// activation node's own kernel on the output, in place.
#include <memory>
#include <vector>

#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/ops/batch_norm_activation.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {
namespace {

class BatchNormalizationOverride final : public OptimizedKernel {
 public:
  BatchNormalizationOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        epsilon_(node.get_float("epsilon", 1e-5f)),
        training_(node.get_int("training_mode", 0) != 0) {}
  BatchNormalizationOverride(const NodeInfo& node, const OptimizedConfig& config, FusedActivation activation)
      : BatchNormalizationOverride(node, config) {
    activation_ = std::make_unique<FusedActivation>(std::move(activation));
  }

  bool has_activation() const noexcept { return activation_ != nullptr; }

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    bool served = !training_ && x.dtype() == DType::F32 && x.shape().rank() >= 2 && x.is_contiguous() && context.input_count() >= 5;
    for (std::size_t i = 1; served && i < 5; ++i) {
      const Tensor& p = context.input(i);
      served = context.has_input(i) && p.dtype() == DType::F32 && p.is_contiguous() && p.shape().rank() == 1 &&
               p.shape()[0] == x.shape()[1];
    }
    for (std::size_t i = 1; served && i < context.output_count(); ++i) served = !context.output_wanted(i);
    if (!served) {
      run_reference(context);
      if (activation_ != nullptr) run_activation(context);
      return;
    }
    batchnorm::BatchNormArgs a;
    const std::int64_t n = x.shape()[0], c = x.shape()[1];
    if (n * c == 0 || x.element_count() == 0) return;
    a.n = static_cast<std::size_t>(n);
    a.c = static_cast<std::size_t>(c);
    a.plane = static_cast<std::size_t>(x.element_count() / (n * c));
    a.x = x.data<float>().data();
    a.y = context.output(0).mutable_data<float>().data();
    a.scale = context.input(1).data<float>().data();
    a.bias = context.input(2).data<float>().data();
    a.mean = context.input(3).data<float>().data();
    a.var = context.input(4).data<float>().data();
    a.epsilon = epsilon_;
    a.activation = activation_ != nullptr ? &activation_->args : nullptr;
    batchnorm::batch_norm_f32(kernel_context(context), a);
  }

 private:
  // The activation node's own kernel on the reference's output, in place (as the unfused graph
  // would run it on the normalization's result; its in_place_input is 0).
  void run_activation(RunContext& context) const {
    std::vector<Tensor> inputs{context.output(0)};
    inputs.insert(inputs.end(), activation_->extra_inputs.begin(), activation_->extra_inputs.end());
    std::vector<Tensor> outputs{context.output(0)};
    RunContext sub(activation_->info, inputs, outputs, nullptr, nullptr);
    activation_->kernel->run(sub);
  }

  float epsilon_;  // read as the reference reads it
  bool training_;  // the reference kernel computes the batch statistics
  std::unique_ptr<FusedActivation> activation_;  // `batchnorm-activation` (spec/optimized-engine.md), or none
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_batch_normalization(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<BatchNormalizationOverride>(node, config);
}

std::unique_ptr<OpKernel> make_optimized_batch_normalization_with_activation(const NodeInfo& node,
                                                                             const OptimizedConfig& config,
                                                                             FusedActivation activation) {
  return std::make_unique<BatchNormalizationOverride>(node, config, std::move(activation));
}

std::string batch_norm_fused_label(const OpKernel& kernel) {
  const auto* bn = dynamic_cast<const BatchNormalizationOverride*>(&kernel);
  return bn != nullptr && bn->has_activation() ? "BatchNormalization+activation" : "BatchNormalization";
}

}  // namespace onemodel::opt
