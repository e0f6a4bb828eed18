// MatMul (opset 1 and later; the schema's semantics did not change): numpy.matmul with the
// exact-mode matrix product (spec/ops/products-conv.md sections 2 and 4). Types f32, f64, f16
// (computed in binary32, rounded once when stored), bf16, and the 32/64-bit integers (wrapping).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/exact_dot.hpp"
#include "reference/ops/matmul_helpers.hpp"

namespace onemodel {
namespace {

using MatMulTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16, ew::I32, ew::I64, ew::U32, ew::U64>;

class MatMul final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    ew::require(context, 0, MatMulTypes{});
    if (context.input_type(0) != context.input_type(1)) context.node().fail_invalid("A and B have different element types");
    const auto s = products::matmul_shape(context.node(), context.input_shape(0), context.input_shape(1));
    context.set_output(0, context.input_type(0), s.out);
  }
  void run(RunContext& context) const override {
    const Tensor& a_t = context.input(0);
    const Tensor& b_t = context.input(1);
    const auto s = products::matmul_shape(context.node(), a_t.shape(), b_t.shape());
    ew::dispatch(a_t.dtype(), MatMulTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      const auto a = a_t.to_vector<typename E::storage>();
      const auto b = b_t.to_vector<typename E::storage>();
      auto c = context.output(0).mutable_data<typename E::storage>();
      const std::int64_t batches = s.batch.element_count();
      for (std::int64_t bi = 0; bi < batches; ++bi) {
        std::int64_t a_off = 0, b_off = 0;
        products::batch_offsets(s, bi, a_off, b_off);
        const std::size_t ab = static_cast<std::size_t>(a_off * s.m * s.k);
        const std::size_t bb = static_cast<std::size_t>(b_off * s.k * s.n);
        const std::size_t cb = static_cast<std::size_t>(bi * s.m * s.n);
        for (std::int64_t i = 0; i < s.m; ++i) {
          for (std::int64_t j = 0; j < s.n; ++j) {
            // spec/ops/products-conv.md section 2: +0, increasing p, unfused.
            V acc = products::accumulator_start<V>();
            for (std::int64_t p = 0; p < s.k; ++p) {
              const V x = E::load(a[ab + static_cast<std::size_t>(i * s.k + p)]);
              const V y = E::load(b[bb + static_cast<std::size_t>(p * s.n + j)]);
              acc = products::product_step(acc, x, y);
            }
            c[cb + static_cast<std::size_t>(i * s.n + j)] = E::store(acc);  // canonical NaN
          }
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul(const NodeInfo&) { return std::make_unique<MatMul>(); }

}  // namespace onemodel
