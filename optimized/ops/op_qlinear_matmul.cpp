// QLinearMatMul on the integer product kernel (spec-source int8.md "Product kernel" and
// "Operators"): the int32 product of (a - a_zero_point)(b - b_zero_point) from the kernel, then,
// per element, the reference's own bias addition modulo 2^32 and requantization
// (quant::requant_multiplier, quant::requantize: float32 multiplier (sa * sb) / sy, round half to
// even, zero point, clamp; spec/ops/quantization.md sections 10 and 11), so the bits are the
// reference's on every path and thread count. Shapes, types and refusals are the reference's.
#include <memory>
#include <vector>

#include "optimized/ops/integer_product_plan.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {
namespace {

class QLinearMatMulOptimized final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    return make_integer_product_plan(context, 0, 3, config().isa);
  }

  void run(RunContext& context) const override {
    const auto* plan = static_cast<const IntegerProductPlan*>(context.state());
    products::MatMulShape computed;
    const products::MatMulShape& s = integer_product_shape(context, plan, 0, 3, computed);
    if (!integer_product_served(s)) {
      run_reference(context);
      return;
    }
    const Tensor& out = context.output(0);
    const std::int64_t total = s.batch.element_count() * s.m * s.n;
    Tensor acc = context.scratch(DType::I32, Shape{total});
    std::int32_t* c = acc.mutable_data<std::int32_t>().data();
    run_integer_product(context, plan, s, 0, 3, integer_zero_points(context, 2), integer_zero_points(context, 5), c,
                        config());
    const std::vector<float> sa = quant::floats_of(context.input(1));
    const std::vector<float> sb = quant::floats_of(context.input(4));
    const float sy = quant::floats_of(context.input(6))[0];
    const std::int64_t zy = quant::integers_of(context.input(7))[0];
    const quant::PerIndex bias = context.has_input(8) ? quant::per_index_of(context.input(8)) : quant::PerIndex{};
    const quant::Range range = quant::range_of(out.dtype());
    std::vector<std::int64_t> y(static_cast<std::size_t>(total));
    for (std::int64_t idx = 0; idx < total; ++idx) {
      const std::int64_t j = idx % s.n;
      const std::int64_t i = (idx / s.n) % s.m;
      const float mult = quant::requant_multiplier(sa[sa.size() == 1 ? 0 : static_cast<std::size_t>(i)],
                                                   sb[sb.size() == 1 ? 0 : static_cast<std::size_t>(j)], sy);
      const std::int32_t with_bias = quant::wrap_to_int32(static_cast<std::int64_t>(c[idx]) + bias.at(j));
      y[static_cast<std::size_t>(idx)] = quant::requantize(with_bias, mult, zy, range);
    }
    quant::store_integers(out, y);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_qlinear_matmul_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<QLinearMatMulOptimized>(node, config);
}

}  // namespace onemodel::opt
