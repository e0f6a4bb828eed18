// MatMulInteger on the integer product kernel (optimized/kernels/int8gemm, spec-source int8.md
// "Product kernel"). Shapes, types and refusals are the reference's (its infer(); numpy.matmul
// rules, per-tensor or per-row/per-column zero points). Integer arithmetic is exact and the
// kernel's sums and corrections are taken modulo 2^32, as the reference stores its 64-bit sum
// (spec/ops/quantization.md section 7), so every output equals the reference's on every path and
// thread count, fast and exact mode alike. A constant B is packed once per plan (prepare()).
#include <memory>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {
namespace {

struct MatMulIntegerPlan {
  Shape a_shape, b_shape;
  products::MatMulShape shape;
  std::vector<int8::PackedB> packed_b;  // one per matrix of B's batch; empty when B is not constant
};

// The bytes of a contiguous uint8 or int8 tensor (int8 read as two's complement by the kernel).
const std::uint8_t* raw_bytes(const Tensor& t) {
  if (t.element_count() == 0) return nullptr;
  return reinterpret_cast<const std::uint8_t*>(tensor_bytes(t).data());
}

std::vector<std::int32_t> zero_points(const RunContext& context, std::size_t input) {
  if (!context.has_input(input)) return {0};
  std::vector<std::int32_t> out;
  for (std::int64_t v : quant::integers_of(context.input(input))) out.push_back(static_cast<std::int32_t>(v));
  return out;
}

class MatMulIntegerOptimized final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<MatMulIntegerPlan>();
    plan->a_shape = context.input_shape(0);
    plan->b_shape = context.input_shape(1);
    plan->shape = products::matmul_shape(context.node(), plan->a_shape, plan->b_shape);
    const products::MatMulShape& s = plan->shape;
    const Tensor* b = context.known_value(1);
    if (b != nullptr && served(s) && s.n > 0) {
      const Tensor bc = b->contiguous();
      const std::uint8_t* bytes = raw_bytes(bc);
      const std::int64_t count = s.k == 0 ? 0 : bc.element_count() / (s.k * s.n);
      for (std::int64_t i = 0; i < count; ++i) {
        const int8::Operand view{bytes + i * s.k * s.n, bc.dtype() == DType::I8, static_cast<std::size_t>(s.n)};
        plan->packed_b.push_back(
            int8::pack_b(view, static_cast<std::size_t>(s.k), static_cast<std::size_t>(s.n), config().isa));
      }
    }
    return plan;
  }

  void run(RunContext& context) const override {
    const Tensor& a_t = context.input(0);
    const Tensor& b_t = context.input(1);
    const auto* plan = static_cast<const MatMulIntegerPlan*>(context.state());
    if (plan != nullptr && !(plan->a_shape == a_t.shape() && plan->b_shape == b_t.shape())) plan = nullptr;
    products::MatMulShape computed;
    if (plan == nullptr) computed = products::matmul_shape(context.node(), a_t.shape(), b_t.shape());
    const products::MatMulShape& s = plan != nullptr ? plan->shape : computed;
    if (!served(s)) {
      run_reference(context);
      return;
    }
    const std::int64_t batches = s.batch.element_count();
    if (batches == 0 || s.m == 0 || s.n == 0) return;
    const Tensor a = a_t.contiguous();
    const Tensor b = b_t.contiguous();
    const std::vector<std::int32_t> za = zero_points(context, 2);
    const std::vector<std::int32_t> zb = zero_points(context, 3);
    const bool a_signed = a.dtype() == DType::I8, b_signed = b.dtype() == DType::I8;
    std::int32_t* c = context.output(0).mutable_data<std::int32_t>().data();
    const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
    const std::uint8_t* a_bytes = raw_bytes(a);
    const std::uint8_t* b_bytes = raw_bytes(b);
    for (std::int64_t bi = 0; bi < batches; ++bi) {
      std::int64_t a_off = 0, b_off = 0;
      products::batch_offsets(s, bi, a_off, b_off);
      const int8::Operand a_view{a_bytes == nullptr ? nullptr : a_bytes + a_off * s.m * s.k, a_signed, k};
      int8::PackedB local;
      const int8::PackedB* packed = nullptr;
      if (plan != nullptr && !plan->packed_b.empty()) {
        packed = &plan->packed_b[static_cast<std::size_t>(b_off)];
      } else {
        local = int8::pack_b(int8::Operand{b_bytes == nullptr ? nullptr : b_bytes + b_off * s.k * s.n, b_signed, n}, k, n,
                             config().isa);
        packed = &local;
      }
      int8::gemm(m, a_view, za, *packed, zb, c + bi * s.m * s.n, n, config().pool, config().isa);
    }
  }

 private:
  // K within the kernel's int32 column sums (int8_gemm.hpp); past it the reference serves.
  static bool served(const products::MatMulShape& s) { return static_cast<std::size_t>(s.k) <= int8::kMaxK; }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul_integer_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<MatMulIntegerOptimized>(node, config);
}

}  // namespace onemodel::opt
