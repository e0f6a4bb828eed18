// QLinearMatMul on the integer product kernel (spec-source int8.md "Product kernel" and
// "Operators"): the int32 product of (a - a_zero_point)(b - b_zero_point) from the kernel, then,
// the requantization epilogue of integer_requantize.hpp (the bias added modulo 2^32, the float32
// multiplier (sa * sb) / sy worked out once per row/column scale pair with
// quant::requant_multiplier, round half to even, zero point, clamp; spec/ops/quantization.md
// sections 10 and 11), in chunks of one output row, so the bits are the reference's on every path
// and thread count. Shapes, types and refusals are the reference's.
#include <memory>
#include <vector>

#include "optimized/ops/integer_chunks.hpp"
#include "optimized/ops/integer_product_plan.hpp"
#include "optimized/ops/integer_requantize.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {
namespace {

class QLinearMatMulOptimized final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    return make_integer_product_plan(context, 0, 3, config().isa, 5);
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
    ZeroPoints zb_local(0);
    run_integer_product(context, plan, s, 0, 3, integer_zero_points(context, 2).span(),
                        b_zero_points(context, plan, 5, zb_local), c,
                        config());
    const std::vector<float> sa = quant::floats_of(context.input(1));
    const std::vector<float> sb = quant::floats_of(context.input(4));
    const float sy = quant::floats_of(context.input(6))[0];
    const auto zy = static_cast<std::int32_t>(quant::integers_of(context.input(7))[0]);
    std::vector<std::int32_t> bias;
    if (context.has_input(8)) {
      for (std::int64_t v : quant::integers_of(context.input(8))) bias.push_back(static_cast<std::int32_t>(v));
    }
    // The multiplier once per row scale or per column scale: requant_multiplier on the very
    // values the reference's per-element call uses, so the same float32 bits. sa holds 1 or m
    // values, sb 1 or n (the reference's infer()); when both are vectors a chunk works out its
    // row's n multipliers (a table of m * n would be as large as the output).
    const bool per_pair = sa.size() > 1 && sb.size() > 1;
    std::vector<float> mult;
    if (!per_pair) {
      const std::vector<float>& vec = sb.size() > 1 ? sb : sa;
      for (float v : vec) mult.push_back(sb.size() > 1 ? quant::requant_multiplier(sa[0], v, sy) : quant::requant_multiplier(v, sb[0], sy));
    }
    const quant::Range range = quant::range_of(out.dtype());
    auto* y = reinterpret_cast<std::uint8_t*>(out.dtype() == DType::U8 ? static_cast<void*>(out.mutable_data<std::uint8_t>().data())
                                                                        : static_cast<void*>(out.mutable_data<std::int8_t>().data()));
    const auto rows = static_cast<std::size_t>(s.batch.element_count() * s.m);
    const auto n = static_cast<std::size_t>(s.n);
    run_integer_chunks(config().pool, rows, 1.0 * static_cast<double>(total), [&](std::size_t row) {
      const std::size_t i = row % static_cast<std::size_t>(s.m);
      const float* m = nullptr;
      std::size_t step = 0;
      thread_local std::vector<float> row_mult;
      if (per_pair) {
        row_mult.resize(n);
        for (std::size_t j = 0; j < n; ++j) row_mult[j] = quant::requant_multiplier(sa[i], sb[j], sy);
        m = row_mult.data();
        step = 1;
      } else if (sb.size() > 1) {
        m = mult.data();
        step = 1;
      } else {
        m = mult.data() + (sa.size() == 1 ? 0 : i);
      }
      const std::int32_t* b = bias.empty() ? nullptr : bias.data();
      requantize_bytes(c + row * n, n, m, step, b, bias.size() == 1 ? 0 : 1, zy, range, y + row * n, config().isa);
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_qlinear_matmul_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<QLinearMatMulOptimized>(node, config);
}

}  // namespace onemodel::opt
