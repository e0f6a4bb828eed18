// GlobalMaxPool (opsets 1, 22), float32 and float64 (spec/ops/products-conv.md section 8.4,
// ops-conv.md "GlobalMaxPool"): the maximum starting from the lowest finite value of the type,
// replaced only by strictly greater values, so NaNs are ignored and a plane of NaN or -inf gives
// -3.4028235e38 (float64: -1.7976931348623157e308). Exact for both types.
#include <limits>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/global_pool_helpers.hpp"

namespace onemodel {
namespace {

class GlobalMaxPool final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    context.set_output(0, context.input_type(0), pooling::global_output_shape(context.node(), context.input_shape(0)));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  template <class T>
  static void run_typed(const RunContext& context) {
    pooling::reduce_planes<T>(context.input(0), context.output(0), [](std::span<const T> plane) {
      T best = std::numeric_limits<T>::lowest();
      for (const T v : plane) {
        if (v > best) best = v;
      }
      return best;
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo&) { return std::make_unique<GlobalMaxPool>(); }

}  // namespace onemodel
