// Gemm: Y = alpha * A' * B' + beta * C (spec/ops/products-conv.md section 5). The product A' * B'
// is the exact-mode matrix product (section 2); the epilogue is two separately rounded multiplies
// and one add, never fused, in both modes (graph-runtime.md section 7): t = alpha * acc, then
// y = t + beta * C. C broadcasts one way to [M, N]; with beta = 0 C is not read and y = t (section
// 5: ONNX's reference evaluator and ONNX Runtime add beta * C only when beta != 0, so an infinite
// or NaN C does not make NaN). Gemm_7 (opsets 7 to 10) requires C, Gemm_11
// (11 and later) lets it be omitted. Types f32, f64, f16, bf16 and the 32/64-bit integers.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/exact_dot.hpp"
#include "reference/ops/integer_wrap.hpp"

namespace onemodel {
namespace {

using GemmTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16, ew::I32, ew::I64, ew::U32, ew::U64>;

class Gemm final : public OpKernel {
 public:
  Gemm(const NodeInfo& node, bool c_required)
      : alpha_(node.get_float("alpha", 1.0f)),
        beta_(node.get_float("beta", 1.0f)),
        trans_a_(node.get_int("transA", 0) != 0),
        trans_b_(node.get_int("transB", 0) != 0) {
    if (c_required && !node.has_input(2)) node.fail_invalid("Gemm before opset 11 requires C");
  }
  void infer(InferContext& context) const override {
    ew::require(context, 0, GemmTypes{});
    const NodeInfo& node = context.node();
    for (std::size_t i = 1; i < 3; ++i) {
      if (context.has_input(i) && context.input_type(i) != context.input_type(0)) {
        node.fail_invalid("inputs have different element types");
      }
    }
    const Shape& a = context.input_shape(0);
    const Shape& b = context.input_shape(1);
    if (a.rank() != 2 || b.rank() != 2) node.fail_invalid("A and B must be 2-D");
    const std::int64_t m = trans_a_ ? a[1] : a[0], k = trans_a_ ? a[0] : a[1];
    const std::int64_t kb = trans_b_ ? b[1] : b[0], n = trans_b_ ? b[0] : b[1];
    if (k != kb) node.fail_invalid("inner dimensions differ: " + a.to_string() + " and " + b.to_string());
    if (context.has_input(2)) {
      const Shape& c = context.input_shape(2);
      // Unidirectional broadcast of C to [M, N].
      if (c.rank() > 2) node.fail_invalid("C has rank above 2");
      const std::int64_t cm = c.rank() == 2 ? c[0] : 1;
      const std::int64_t cn = c.rank() >= 1 ? c[c.rank() - 1] : 1;
      if ((cm != 1 && cm != m) || (cn != 1 && cn != n)) node.fail_invalid("C " + c.to_string() + " does not broadcast to [M, N]");
    }
    context.set_output(0, context.input_type(0), Shape{m, n});
  }
  void run(RunContext& context) const override {
    const Tensor& a_t = context.input(0);
    const Tensor& b_t = context.input(1);
    const std::int64_t m = trans_a_ ? a_t.shape()[1] : a_t.shape()[0];
    const std::int64_t k = trans_a_ ? a_t.shape()[0] : a_t.shape()[1];
    const std::int64_t n = trans_b_ ? b_t.shape()[0] : b_t.shape()[1];
    ew::dispatch(a_t.dtype(), GemmTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      const auto a = a_t.to_vector<typename E::storage>();
      const auto b = b_t.to_vector<typename E::storage>();
      std::vector<typename E::storage> c;
      std::int64_t cm = 0, cn = 0;
      // beta = 0 (either sign): C is not read (its shape was still checked by infer).
      if (context.has_input(2) && beta_ != 0.0f) {
        const Tensor& c_t = context.input(2);
        c = c_t.to_vector<typename E::storage>();
        cm = c_t.rank() == 2 ? c_t.shape()[0] : 1;
        cn = c_t.rank() >= 1 ? c_t.shape()[c_t.rank() - 1] : 1;
      }
      const V alpha = convert<V>(alpha_);
      const V beta = convert<V>(beta_);
      auto y = context.output(0).mutable_data<typename E::storage>();
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          V acc = products::accumulator_start<V>();
          for (std::int64_t p = 0; p < k; ++p) {
            const std::int64_t ai = trans_a_ ? p * m + i : i * k + p;
            const std::int64_t bi = trans_b_ ? j * k + p : p * n + j;
            acc = products::product_step(acc, E::load(a[static_cast<std::size_t>(ai)]), E::load(b[static_cast<std::size_t>(bi)]));
          }
          V out = multiply(alpha, acc);
          if (!c.empty()) {
            const std::int64_t ci = (cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j);
            const V scaled_c = multiply(beta, E::load(c[static_cast<std::size_t>(ci)]));
            out = add(out, scaled_c);
          }
          y[static_cast<std::size_t>(i * n + j)] = E::store(out);
        }
      }
    });
  }

 private:
  // ONNX gives alpha and beta as floats; for integer types they are converted (truncated).
  template <class V>
  static V convert(float v) noexcept {
    if constexpr (std::is_floating_point_v<V>) return static_cast<V>(v);
    else return static_cast<V>(static_cast<std::int64_t>(v));
  }
  template <class V>
  static V multiply(V a, V b) noexcept {
    if constexpr (std::is_floating_point_v<V>) return a * b;
    else return ew::wrap_mul(a, b);
  }
  template <class V>
  static V add(V a, V b) noexcept {
    if constexpr (std::is_floating_point_v<V>) return a + b;
    else return ew::wrap_add(a, b);
  }

  float alpha_, beta_;
  bool trans_a_, trans_b_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gemm_7(const NodeInfo& node) { return std::make_unique<Gemm>(node, true); }
std::unique_ptr<OpKernel> make_gemm_11(const NodeInfo& node) { return std::make_unique<Gemm>(node, false); }

}  // namespace onemodel
