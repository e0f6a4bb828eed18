// LSTM: gates i, o, f, c (spec/ops/recurrent.md section 5, "LSTM"). Pre-activations
// ((xw + rec) + Wb) + Rb; peepholes pre_i += Pi * c_prev, pre_f += Pf * c_prev, and
// pre_o += Po * c with the new cell; clip; i = f(pre_i), fg = f(pre_f) or 1 - i (input_forget),
// ct = g(pre_c), c = (fg * c_prev) + (i * ct), o = f(pre_o), h = o * h(c). Default activations
// Sigmoid, Tanh, Tanh. Opsets 7 and later (one implementation, section 1).
#include "reference/ops/recurrent_helpers.hpp"

namespace onemodel {
namespace {

using namespace recurrent;

class Lstm final : public OpKernel {
 public:
  explicit Lstm(const NodeInfo& node)
      : attributes_(parse_attributes(node, {"Sigmoid", "Tanh", "Tanh"})),
        input_forget_(node.get_int("input_forget", 0) != 0) {}
  void infer(InferContext& context) const override { infer_recurrent(context, attributes_, 4, true); }
  void run(RunContext& context) const override {
    const std::int64_t hidden = context.input(kR).shape()[2];
    run_recurrent(context, attributes_, 4, true, [&](const CellStep& step, const DirectionWeights& w) {
      const auto& acts = attributes_.activations[static_cast<std::size_t>(step.direction)];
      const Activation& f = acts[0];
      const Activation& g = acts[1];
      const Activation& h_act = acts[2];
      // Gate rows: i at 0, o at H, f at 2H, c at 3H; P holds i, o, f.
      const auto pre_activation = [&](std::int64_t gate, std::int64_t j) {
        const std::int64_t col = gate * hidden + j;
        const float rec = ordered_dot(step.h_prev, w.r + col * hidden, hidden);
        float pre = step.xw[col] + rec;
        if (w.wb != nullptr) {
          pre = pre + w.wb[col];
          pre = pre + w.rb[col];
        }
        return pre;
      };
      for (std::int64_t j = 0; j < hidden; ++j) {
        const float c_prev = step.c_prev[j];
        float pre_i = pre_activation(0, j);
        float pre_o = pre_activation(1, j);
        float pre_f = pre_activation(2, j);
        const float pre_c = pre_activation(3, j);
        if (w.p != nullptr) {
          const float peep_i = w.p[j] * c_prev;
          pre_i = pre_i + peep_i;
          const float peep_f = w.p[2 * hidden + j] * c_prev;
          pre_f = pre_f + peep_f;
        }
        const float i = f(apply_clip(pre_i, attributes_.clip));
        const float fg = input_forget_ ? 1.0f - i : f(apply_clip(pre_f, attributes_.clip));
        const float ct = g(apply_clip(pre_c, attributes_.clip));
        const float kept = fg * c_prev;
        const float added = i * ct;
        const float c = kept + added;
        if (w.p != nullptr) {
          const float peep_o = w.p[hidden + j] * c;
          pre_o = pre_o + peep_o;
        }
        const float o = f(apply_clip(pre_o, attributes_.clip));
        step.c_new[j] = c;
        step.h_new[j] = o * h_act(c);
      }
    });
  }

 private:
  RecurrentAttributes attributes_;
  bool input_forget_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lstm(const NodeInfo& node) { return std::make_unique<Lstm>(node); }

}  // namespace onemodel
