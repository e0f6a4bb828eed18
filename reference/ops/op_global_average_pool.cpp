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
    const Tensor& x_t = context.input(0);
    const auto x = x_t.to_vector<float>();
    auto y = context.output(0).mutable_data<float>();
    const std::int64_t planes = static_cast<std::int64_t>(x_t.shape()[0]) * x_t.shape()[1];
    const std::int64_t size = planes == 0 ? 0 : x_t.element_count() / planes;
    for (std::int64_t p = 0; p < planes; ++p) {
      float sum = 0.0f;
      for (std::int64_t i = 0; i < size; ++i) sum = sum + x[static_cast<std::size_t>(p * size + i)];
      y[static_cast<std::size_t>(p)] = canonical_nan_f32(sum / static_cast<float>(size));
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace onemodel
