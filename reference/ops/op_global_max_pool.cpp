// GlobalMaxPool (opsets 1, 22), float32 (spec/ops/products-conv.md section 8.4, ops-conv.md
// "GlobalMaxPool"): the maximum starting from the lowest finite float, replaced only by strictly
// greater values, so NaNs are ignored and a plane of NaN or -inf gives -3.4028235e38.
#include <limits>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/global_pool_helpers.hpp"

namespace onemodel {
namespace {

class GlobalMaxPool final : public OpKernel {
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
      float best = std::numeric_limits<float>::lowest();
      for (std::int64_t i = 0; i < size; ++i) {
        const float v = x[static_cast<std::size_t>(p * size + i)];
        if (v > best) best = v;
      }
      y[static_cast<std::size_t>(p)] = best;
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo&) { return std::make_unique<GlobalMaxPool>(); }

}  // namespace onemodel
