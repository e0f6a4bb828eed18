// Adam (ai.onnx.preview.training, version 1): spec/ops/training.md section 4. Inputs R, T,
// X_1..X_n, G_1..G_n, V_1..V_n, H_1..H_n; outputs X_new_1..n, V_new_1..n, H_new_1..n. The ONNX
// pseudo code in the tensors' type, left to right; alpha^T and beta^T by the exact Pow
// (spec/exact-transcendentals.md section 10): exact.
#include <cmath>

#include "reference/math/exact_pow.hpp"
#include "reference/ops/optimizer_helpers.hpp"

namespace onemodel {
namespace {

class Adam final : public OpKernel {
 public:
  explicit Adam(const NodeInfo& node)
      : alpha_(node.get_float("alpha", 0.9f)), beta_(node.get_float("beta", 0.999f)),
        epsilon_(node.get_float("epsilon", 1e-6f)), norm_(node.get_float("norm_coefficient", 0.0f)),
        norm_post_(node.get_float("norm_coefficient_post", 0.0f)) {}

  void infer(InferContext& context) const override { optimizers::infer_optimizer(context, 4); }

  void run(RunContext& context) const override {
    const std::size_t n = optimizers::tensor_count(context.node(), context.input_count(), 4);
    for (std::size_t i = 0; i < n; ++i) {
      ew::dispatch(context.input(2 + i).dtype(), optimizers::Types{}, [&](auto tag) {
        using E = decltype(tag);
        using V = typename E::value;
        const V alpha = static_cast<V>(alpha_), beta = static_cast<V>(beta_);
        const std::int64_t t = optimizers::scalar_t(context.input(1));
        V r = optimizers::scalar_r<V>(context.input(0));
        if (t > 0) {
          const double td = static_cast<double>(t);
          r = r * std::sqrt(V(1) - exact::pow(beta, td)) / (V(1) - exact::pow(alpha, td));
        }
        const Tensor x = context.input(2 + i).contiguous(), g = context.input(2 + n + i).contiguous(),
                     v = context.input(2 + 2 * n + i).contiguous(), h = context.input(2 + 3 * n + i).contiguous();
        const auto xs = x.data<V>(), gs = g.data<V>(), vs = v.data<V>(), hs = h.data<V>();
        const std::size_t outs = context.output_count();
        const bool want_x = context.output_wanted(i), want_v = outs > n + i && context.output_wanted(n + i),
                   want_h = outs > 2 * n + i && context.output_wanted(2 * n + i);
        for (std::size_t k = 0; k < xs.size(); ++k) {
          const V g_reg = static_cast<V>(norm_) * xs[k] + gs[k];
          const V v_new = alpha * vs[k] + (V(1) - alpha) * g_reg;
          const V h_new = beta * hs[k] + (V(1) - beta) * g_reg * g_reg;
          const V h_sqrt = std::sqrt(h_new) + static_cast<V>(epsilon_);
          const V x_new = xs[k] - r * v_new / h_sqrt;
          if (want_x) context.output(i).mutable_data<V>()[k] = E::store((V(1) - static_cast<V>(norm_post_)) * x_new);
          if (want_v) context.output(n + i).mutable_data<V>()[k] = E::store(v_new);
          if (want_h) context.output(2 * n + i).mutable_data<V>()[k] = E::store(h_new);
        }
      });
    }
  }

 private:
  float alpha_, beta_, epsilon_, norm_, norm_post_;
};

}  // namespace

std::unique_ptr<OpKernel> make_adam(const NodeInfo& node) { return std::make_unique<Adam>(node); }

}  // namespace onemodel
