#include "optimized/ops/integer_product_plan.hpp"

#include "core/graph/tensor_bytes.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {
namespace {

// The bytes of a contiguous uint8 or int8 tensor (int8 read as two's complement by the kernel).
const std::uint8_t* raw_bytes(const Tensor& t) {
  if (t.element_count() == 0) return nullptr;
  return reinterpret_cast<const std::uint8_t*>(tensor_bytes(t).data());
}

}  // namespace

std::shared_ptr<IntegerProductPlan> make_integer_product_plan(const InferContext& context, std::size_t a, std::size_t b,
                                                              Isa isa) {
  auto plan = std::make_shared<IntegerProductPlan>();
  plan->a_shape = context.input_shape(a);
  plan->b_shape = context.input_shape(b);
  plan->shape = products::matmul_shape(context.node(), plan->a_shape, plan->b_shape);
  const products::MatMulShape& s = plan->shape;
  const Tensor* value = context.known_value(b);
  if (value != nullptr && integer_product_served(s) && s.n > 0 && s.k > 0) {
    const Tensor bc = value->contiguous();
    const std::uint8_t* bytes = raw_bytes(bc);
    const std::int64_t count = bc.element_count() / (s.k * s.n);
    for (std::int64_t i = 0; i < count; ++i) {
      const int8::Operand view{bytes + i * s.k * s.n, bc.dtype() == DType::I8, static_cast<std::size_t>(s.n)};
      plan->packed_b.push_back(int8::pack_b(view, static_cast<std::size_t>(s.k), static_cast<std::size_t>(s.n), isa));
    }
  }
  return plan;
}

const products::MatMulShape& integer_product_shape(const RunContext& context, const IntegerProductPlan* plan,
                                                   std::size_t a, std::size_t b, products::MatMulShape& computed) {
  if (plan != nullptr && plan->a_shape == context.input(a).shape() && plan->b_shape == context.input(b).shape()) {
    return plan->shape;
  }
  computed = products::matmul_shape(context.node(), context.input(a).shape(), context.input(b).shape());
  return computed;
}

void run_integer_product(const RunContext& context, const IntegerProductPlan* plan, const products::MatMulShape& s,
                         std::size_t a, std::size_t b, const std::vector<std::int32_t>& za,
                         const std::vector<std::int32_t>& zb, std::int32_t* c, const OptimizedConfig& config) {
  const std::int64_t batches = s.batch.element_count();
  if (batches == 0 || s.m == 0 || s.n == 0) return;
  const Tensor at = context.input(a).contiguous();
  const Tensor bt = context.input(b).contiguous();
  const bool a_signed = at.dtype() == DType::I8, b_signed = bt.dtype() == DType::I8;
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  const std::uint8_t* a_bytes = raw_bytes(at);
  const std::uint8_t* b_bytes = raw_bytes(bt);
  const bool packed = plan != nullptr && !plan->packed_b.empty() && plan->b_shape == bt.shape();
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    std::int64_t a_off = 0, b_off = 0;
    products::batch_offsets(s, bi, a_off, b_off);
    const int8::Operand a_view{a_bytes == nullptr ? nullptr : a_bytes + a_off * s.m * s.k, a_signed, k};
    int8::PackedB local;
    const int8::PackedB* b_packed = nullptr;
    if (packed) {
      b_packed = &plan->packed_b[static_cast<std::size_t>(b_off)];
    } else {
      local = int8::pack_b(int8::Operand{b_bytes == nullptr ? nullptr : b_bytes + b_off * s.k * s.n, b_signed, n}, k, n,
                           config.isa);
      b_packed = &local;
    }
    int8::gemm(m, a_view, za, *b_packed, zb, c + bi * s.m * s.n, n, config.pool, config.isa);
  }
}

std::vector<std::int32_t> integer_zero_points(const RunContext& context, std::size_t i) {
  if (!context.has_input(i)) return {0};
  std::vector<std::int32_t> out;
  for (std::int64_t v : quant::integers_of(context.input(i))) out.push_back(static_cast<std::int32_t>(v));
  return out;
}

}  // namespace onemodel::opt
