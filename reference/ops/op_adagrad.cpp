// Adagrad (ai.onnx.preview.training, version 1): spec/ops/training.md section 2. Inputs R, T,
// X_1..X_n, G_1..G_n, H_1..H_n; outputs X_new_1..n, H_new_1..n. The ONNX pseudo code evaluated
// in the tensors' type, left to right, sqrt correctly rounded: exact.
#include <cmath>

#include "reference/ops/optimizer_helpers.hpp"

namespace onemodel {
namespace {

class Adagrad final : public OpKernel {
 public:
  explicit Adagrad(const NodeInfo& node)
      : decay_(node.get_float("decay_factor", 0.0f)), epsilon_(node.get_float("epsilon", 1e-6f)),
        norm_(node.get_float("norm_coefficient", 0.0f)) {}

  void infer(InferContext& context) const override { optimizers::infer_optimizer(context, 3); }

  void run(RunContext& context) const override {
    const std::size_t n = optimizers::tensor_count(context.node(), context.input_count(), 3);
    for (std::size_t i = 0; i < n; ++i) {
      ew::dispatch(context.input(2 + i).dtype(), optimizers::Types{}, [&](auto tag) {
        using E = decltype(tag);
        using V = typename E::value;
        const V r = optimizers::scalar_r<V>(context.input(0)) /
                    (V(1) + static_cast<V>(optimizers::scalar_t(context.input(1))) * static_cast<V>(decay_));
        const Tensor x = context.input(2 + i).contiguous(), g = context.input(2 + n + i).contiguous(),
                     h = context.input(2 + 2 * n + i).contiguous();
        const auto xs = x.data<V>(), gs = g.data<V>(), hs = h.data<V>();
        const bool want_x = context.output_wanted(i), want_h = context.output_count() > n + i && context.output_wanted(n + i);
        for (std::size_t k = 0; k < xs.size(); ++k) {
          const V g_reg = static_cast<V>(norm_) * xs[k] + gs[k];
          const V h_new = hs[k] + g_reg * g_reg;
          const V h_adaptive = std::sqrt(h_new) + static_cast<V>(epsilon_);
          if (want_x) context.output(i).mutable_data<V>()[k] = E::store(xs[k] - r * g_reg / h_adaptive);
          if (want_h) context.output(n + i).mutable_data<V>()[k] = E::store(h_new);
        }
      });
    }
  }

 private:
  float decay_, epsilon_, norm_;
};

}  // namespace

std::unique_ptr<OpKernel> make_adagrad(const NodeInfo& node) { return std::make_unique<Adagrad>(node); }

}  // namespace onemodel
