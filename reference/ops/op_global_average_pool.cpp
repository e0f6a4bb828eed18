// GlobalAveragePool (opsets 1, 22), float32 and float64 (spec/ops/products-conv.md section 8.4):
// each plane's sum in index order from +0, divided by the plane size, in the element type; NaN
// stored canonical. Exact for both types.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/global_pool_helpers.hpp"

namespace onemodel {
namespace {

class GlobalAveragePool final : public OpKernel {
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
      T sum = T{0};
      for (const T v : plane) sum = sum + v;
      return norms::store(sum / static_cast<T>(plane.size()));
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace onemodel
