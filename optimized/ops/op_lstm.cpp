// LSTM override on the recurrent driver (optimized/ops/recurrent_override.hpp): gates i, o, f, c
// per batch row in the order of spec/ops/recurrent.md section 5 "LSTM", the reference's
// (reference/ops/op_lstm.cpp) operation for operation, gate by gate over the row's H units so the
// activations run on whole arrays: pre = ((xw + rec) + Wb) + Rb; peepholes pre_i += Pi * c_prev,
// pre_f += Pf * c_prev; clip; i = f(pre_i); fg = f(pre_f) or 1 - i (input_forget); ct = g(pre_c);
// c = (fg * c_prev) + (i * ct); pre_o += Po * c with the new cell; clip; o = f(pre_o); h = o * h(c).
#include "optimized/ops/recurrent_override.hpp"

namespace onemodel::opt {
namespace {

using recurrent::DirectionWeights;

class LstmOptimized final : public RecurrentOverride {
 public:
  LstmOptimized(const NodeInfo& node, const OptimizedConfig& config)
      : RecurrentOverride(node, config, 4, true, {"Sigmoid", "Tanh", "Tanh"}),
        input_forget_(node.get_int("input_forget", 0) != 0) {}

 protected:
  void phase_one(const RecurrentRow& row, const DirectionWeights& w, std::int64_t hidden, Isa isa) const override {
    const auto& acts = attributes().activations[static_cast<std::size_t>(row.direction)];
    const std::optional<float>& clip = attributes().clip;
    const std::int64_t gh = 4 * hidden;
    float* pre = row.work;       // pre-activations, gate rows i, o, f, c
    float* gate = row.work + gh;  // the gates after their activations, same rows
    for (std::int64_t col = 0; col < gh; ++col) {
      float v = row.xw[col] + row.rec[col];
      if (w.wb != nullptr) {
        v = v + w.wb[col];
        v = v + w.rb[col];
      }
      pre[col] = v;
    }
    float* pre_i = pre;
    float* pre_o = pre + hidden;
    float* pre_f = pre + 2 * hidden;
    float* pre_c = pre + 3 * hidden;
    if (w.p != nullptr) {  // P holds i, o, f
      for (std::int64_t j = 0; j < hidden; ++j) {
        const float peep_i = w.p[j] * row.c_prev[j];
        pre_i[j] = pre_i[j] + peep_i;
        const float peep_f = w.p[2 * hidden + j] * row.c_prev[j];
        pre_f[j] = pre_f[j] + peep_f;
      }
    }
    float* i = gate;
    float* o = gate + hidden;
    float* fg = gate + 2 * hidden;
    float* ct = gate + 3 * hidden;
    apply_clip_all(pre_i, hidden, clip);
    apply_activation(isa, acts[0], pre_i, i, hidden);
    if (input_forget_) {
      for (std::int64_t j = 0; j < hidden; ++j) fg[j] = 1.0f - i[j];
    } else {
      apply_clip_all(pre_f, hidden, clip);
      apply_activation(isa, acts[0], pre_f, fg, hidden);
    }
    apply_clip_all(pre_c, hidden, clip);
    apply_activation(isa, acts[1], pre_c, ct, hidden);
    for (std::int64_t j = 0; j < hidden; ++j) {
      const float kept = fg[j] * row.c_prev[j];
      const float added = i[j] * ct[j];
      row.c_new[j] = kept + added;
    }
    if (w.p != nullptr) {
      for (std::int64_t j = 0; j < hidden; ++j) {
        const float peep_o = w.p[hidden + j] * row.c_new[j];
        pre_o[j] = pre_o[j] + peep_o;
      }
    }
    apply_clip_all(pre_o, hidden, clip);
    apply_activation(isa, acts[0], pre_o, o, hidden);
    float* cell_act = pre_c;  // pre_c is spent
    apply_activation(isa, acts[2], row.c_new, cell_act, hidden);
    for (std::int64_t j = 0; j < hidden; ++j) row.h_new[j] = o[j] * cell_act[j];
  }

 private:
  bool input_forget_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lstm_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<LstmOptimized>(node, config);
}

}  // namespace onemodel::opt
