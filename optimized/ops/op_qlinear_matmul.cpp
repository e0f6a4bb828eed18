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

// The requantization's operands: the scales, y's zero point, the bias and the multipliers
// (requant_multiplier on the very values the reference's per-element call uses, so the same
// float32 bits). sa holds 1 or m values, sb 1 or n (the reference's infer()); when both are
// vectors a chunk works out its row's n multipliers (a table of m * n would be as large as the
// output). Worked out once per plan when the inputs are constants (a warm run then allocates
// nothing, graph-runtime.md section 4), else per call.
struct Requantization {
  std::vector<float> sa, sb;
  float sy = 0.0f;
  std::int32_t zy = 0;
  std::vector<std::int32_t> bias;
  bool per_pair = false;
  std::vector<float> mult;  // not per_pair: one per row scale or per column scale
};

// `value(i)` is input i's tensor or nullptr when it is not known (then false).
template <class Has, class ValueOf>
bool requantization(Has&& has, ValueOf&& value, Requantization& r) {
  const Tensor* sa_t = value(1);
  const Tensor* sb_t = value(4);
  const Tensor* sy_t = value(6);
  const Tensor* zy_t = value(7);
  const Tensor* bias_t = has(8) ? value(8) : nullptr;
  if (sa_t == nullptr || sb_t == nullptr || sy_t == nullptr || zy_t == nullptr || (has(8) && bias_t == nullptr)) {
    return false;
  }
  r.sa = quant::floats_of(*sa_t);
  r.sb = quant::floats_of(*sb_t);
  r.sy = quant::floats_of(*sy_t)[0];
  r.zy = static_cast<std::int32_t>(quant::integers_of(*zy_t)[0]);
  if (bias_t != nullptr) {
    for (std::int64_t v : quant::integers_of(*bias_t)) r.bias.push_back(static_cast<std::int32_t>(v));
  }
  r.per_pair = r.sa.size() > 1 && r.sb.size() > 1;
  if (!r.per_pair) {
    const std::vector<float>& vec = r.sb.size() > 1 ? r.sb : r.sa;
    for (float v : vec) {
      r.mult.push_back(r.sb.size() > 1 ? quant::requant_multiplier(r.sa[0], v, r.sy)
                                       : quant::requant_multiplier(v, r.sb[0], r.sy));
    }
  }
  return true;
}

struct QLinearMatMulPlan {
  std::shared_ptr<IntegerProductPlan> product;
  bool requant_known = false;
  Requantization requant;
};

class QLinearMatMulOptimized final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<QLinearMatMulPlan>();
    plan->product = make_integer_product_plan(context, 0, 3, config().isa, 5);
    plan->requant_known = requantization([&](std::size_t i) { return context.has_input(i); },
                                         [&](std::size_t i) { return context.known_value(i); }, plan->requant);
    return plan;
  }

  void run(RunContext& context) const override {
    const auto* planned = static_cast<const QLinearMatMulPlan*>(context.state());
    const IntegerProductPlan* plan = planned != nullptr ? planned->product.get() : nullptr;
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
    // The plan's requantization when its operands were constants, else this call's.
    Requantization local;
    const Requantization* r = planned != nullptr && planned->requant_known ? &planned->requant : &local;
    if (r == &local) {
      requantization([&](std::size_t i) { return context.has_input(i); },
                     [&](std::size_t i) { return &context.input(i); }, local);
    }
    const std::vector<float>& sa = r->sa;
    const std::vector<float>& sb = r->sb;
    const float sy = r->sy;
    const std::int32_t zy = r->zy;
    const std::vector<std::int32_t>& bias = r->bias;
    const bool per_pair = r->per_pair;
    const std::vector<float>& mult = r->mult;
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
