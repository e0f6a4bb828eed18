// MatMulInteger on the integer product kernel (optimized/kernels/int8gemm, spec-source int8.md
// "Product kernel"). Shapes, types and refusals are the reference's (its infer(); numpy.matmul
// rules, per-tensor or per-row/per-column zero points). Integer arithmetic is exact and the
// kernel's sums and corrections are taken modulo 2^32, as the reference stores its 64-bit sum
// (spec/ops/quantization.md section 7), so every output equals the reference's on every path and
// thread count, fast and exact mode alike. A constant B is packed once per plan (prepare()).
#include <memory>

#include "optimized/ops/integer_product_plan.hpp"

namespace onemodel::opt {
namespace {

class MatMulIntegerOptimized final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    return make_integer_product_plan(context, 0, 1, config().isa, 3);
  }

  void run(RunContext& context) const override {
    const auto* plan = static_cast<const IntegerProductPlan*>(context.state());
    products::MatMulShape computed;
    const products::MatMulShape& s = integer_product_shape(context, plan, 0, 1, computed);
    if (!integer_product_served(s)) {
      run_reference(context);
      return;
    }
    ZeroPoints zb_local(0);
    run_integer_product(context, plan, s, 0, 1, integer_zero_points(context, 2).span(),
                        b_zero_points(context, plan, 3, zb_local),
                        context.output(0).mutable_data<std::int32_t>().data(), config());
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul_integer_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<MatMulIntegerOptimized>(node, config);
}

}  // namespace onemodel::opt
