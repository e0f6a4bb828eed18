// Momentum (ai.onnx.preview.training, version 1): spec/ops/training.md section 3. Inputs R, T,
// X_1..X_n, G_1..G_n, V_1..V_n; outputs X_new_1..n, V_new_1..n; mode standard or nesterov. The
// ONNX pseudo code in the tensors' type, left to right: exact.
#include <string>

#include "reference/ops/optimizer_helpers.hpp"

namespace onemodel {
namespace {

class Momentum final : public OpKernel {
 public:
  explicit Momentum(const NodeInfo& node)
      : alpha_(required_float(node, "alpha")), beta_(required_float(node, "beta")),
        norm_(required_float(node, "norm_coefficient")), nesterov_(read_mode(node)) {}

  void infer(InferContext& context) const override { optimizers::infer_optimizer(context, 3); }

  void run(RunContext& context) const override {
    const std::size_t n = optimizers::tensor_count(context.node(), context.input_count(), 3);
    for (std::size_t i = 0; i < n; ++i) {
      ew::dispatch(context.input(2 + i).dtype(), optimizers::Types{}, [&](auto tag) {
        using E = decltype(tag);
        using V = typename E::value;
        const V r = optimizers::scalar_r<V>(context.input(0));
        const V beta = optimizers::scalar_t(context.input(1)) > 0 ? static_cast<V>(beta_) : V(1);
        const V alpha = static_cast<V>(alpha_);
        const Tensor x = context.input(2 + i).contiguous(), g = context.input(2 + n + i).contiguous(),
                     v = context.input(2 + 2 * n + i).contiguous();
        const auto xs = x.data<V>(), gs = g.data<V>(), vs = v.data<V>();
        const bool want_x = context.output_wanted(i), want_v = context.output_count() > n + i && context.output_wanted(n + i);
        for (std::size_t k = 0; k < xs.size(); ++k) {
          const V g_reg = static_cast<V>(norm_) * xs[k] + gs[k];
          const V v_new = alpha * vs[k] + beta * g_reg;
          const V x_new = nesterov_ ? xs[k] - r * (g_reg + alpha * v_new) : xs[k] - r * v_new;
          if (want_x) context.output(i).mutable_data<V>()[k] = E::store(x_new);
          if (want_v) context.output(n + i).mutable_data<V>()[k] = E::store(v_new);
        }
      });
    }
  }

 private:
  static float required_float(const NodeInfo& node, const char* name) {
    if (!node.has(name)) node.fail_invalid(std::string("attribute '") + name + "' is required");
    return node.get_float(name, 0.0f);
  }
  static bool read_mode(const NodeInfo& node) {
    if (!node.has("mode")) node.fail_invalid("attribute 'mode' is required");
    const std::string mode = node.get_string("mode", "");
    if (mode != "standard" && mode != "nesterov") node.fail_invalid("mode '" + mode + "' is neither standard nor nesterov");
    return mode == "nesterov";
  }

  float alpha_, beta_, norm_;
  bool nesterov_;
};

}  // namespace

std::unique_ptr<OpKernel> make_momentum(const NodeInfo& node) { return std::make_unique<Momentum>(node); }

}  // namespace onemodel
