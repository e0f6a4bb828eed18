// RNN: H = f(((xw + rec) + Wb) + Rb), clipped before f (spec/ops/recurrent.md section 5, "RNN").
// One gate; default activation Tanh. Opsets 7 and later (one implementation, section 1).
#include "reference/ops/recurrent_helpers.hpp"

namespace onemodel {
namespace {

using namespace recurrent;

class Rnn final : public OpKernel {
 public:
  explicit Rnn(const NodeInfo& node) : attributes_(parse_attributes(node, {"Tanh"})) {}
  void infer(InferContext& context) const override { infer_recurrent(context, attributes_, 1, false); }
  void run(RunContext& context) const override {
    const std::int64_t hidden = context.input(kR).shape()[2];
    run_recurrent(context, attributes_, 1, false, [&](const CellStep& step, const DirectionWeights& w) {
      const Activation& f = attributes_.activations[static_cast<std::size_t>(step.direction)][0];
      for (std::int64_t j = 0; j < hidden; ++j) {
        // Section 5: pre = ((xw + rec) + Wb) + Rb, each + rounded; bias terms skipped without B.
        const float rec = ordered_dot(step.h_prev, w.r + j * hidden, hidden);
        float pre = step.xw[j] + rec;
        if (w.wb != nullptr) {
          pre = pre + w.wb[j];
          pre = pre + w.rb[j];
        }
        step.h_new[j] = f(apply_clip(pre, attributes_.clip));
      }
    });
  }

 private:
  RecurrentAttributes attributes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_rnn(const NodeInfo& node) { return std::make_unique<Rnn>(node); }

}  // namespace onemodel
