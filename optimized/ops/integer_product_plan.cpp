#include "optimized/ops/integer_product_plan.hpp"

#include "core/graph/tensor_bytes.hpp"
#include "onemodel/tensor_error.hpp"
#include "reference/ops/element_reader.hpp"
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
                                                              Isa isa, std::optional<std::size_t> zb) {
  auto plan = std::make_shared<IntegerProductPlan>();
  if (zb && context.has_input(*zb)) {
    if (const Tensor* z = context.known_value(*zb)) {
      // A zero-point tensor of an unserved type is left to run(), which refuses it as before.
      const DType t = z->dtype();
      if (t == DType::U8 || t == DType::I8 || t == DType::U16 || t == DType::I16 || t == DType::I32) {
        for (const std::int64_t v : quant::integers_of(*z)) plan->zb.push_back(static_cast<std::int32_t>(v));
      }
    }
  }
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
                         std::size_t a, std::size_t b, std::span<const std::int32_t> za,
                         std::span<const std::int32_t> zb, std::int32_t* c, const OptimizedConfig& config) {
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

std::span<const std::int32_t> b_zero_points(const RunContext& context, const IntegerProductPlan* plan, std::size_t i,
                                            ZeroPoints& local) {
  if (plan != nullptr && !plan->zb.empty() && context.has_input(i)) return plan->zb;
  local = integer_zero_points(context, i);
  return local.span();
}

ZeroPoints integer_zero_points(const RunContext& context, std::size_t i) {
  if (!context.has_input(i)) return ZeroPoints(1);
  const Tensor& t = context.input(i);
  ZeroPoints out(static_cast<std::size_t>(t.element_count()));
  // The values quant::integers_of gives, read in place (U8, I8, U16, I16, I32).
  const auto read = [&](auto tag) {
    ::onemodel::ew::ElementReader<decltype(tag)> reader(t, t.shape());
    for (std::int32_t& v : out) v = static_cast<std::int32_t>(reader.next());
  };
  switch (t.dtype()) {
    case DType::U8: read(std::uint8_t{}); break;
    case DType::I8: read(std::int8_t{}); break;
    case DType::U16: read(std::uint16_t{}); break;
    case DType::I16: read(std::int16_t{}); break;
    case DType::I32: read(std::int32_t{}); break;
    default: throw TensorError(TensorErrorKind::Type, "not a quantized integer tensor");
  }
  return out;
}

}  // namespace onemodel::opt
