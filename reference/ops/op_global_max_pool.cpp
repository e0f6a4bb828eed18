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
    pooling::reduce_planes(context.input(0), context.output(0), [](std::span<const float> plane) {
      float best = std::numeric_limits<float>::lowest();
      for (const float v : plane) {
        if (v > best) best = v;
      }
      return best;
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo&) { return std::make_unique<GlobalMaxPool>(); }

}  // namespace onemodel
