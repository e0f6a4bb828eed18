// GlobalAveragePool (opsets 1, 22), float32 (spec/ops/products-conv.md section 8.4): each plane's
// sum in index order from +0, divided by the plane size; NaN stored canonical.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/global_pool_helpers.hpp"

namespace onemodel {
namespace {

class GlobalAveragePool final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    context.set_output(0, DType::F32, pooling::global_output_shape(context.node(), context.input_shape(0)));
  }
  void run(RunContext& context) const override {
    pooling::reduce_planes(context.input(0), context.output(0), [](std::span<const float> plane) {
      float sum = 0.0f;
      for (const float v : plane) sum = sum + v;
      return canonical_nan_f32(sum / static_cast<float>(plane.size()));
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace onemodel
