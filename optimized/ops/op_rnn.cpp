// RNN override on the recurrent driver (optimized/ops/recurrent_override.hpp): per batch row
// H = f(clip(((xw + rec) + Wb) + Rb)), each + rounded, bias terms skipped without B
// (spec/ops/recurrent.md section 5 "RNN"; reference/ops/op_rnn.cpp).
#include "optimized/ops/recurrent_override.hpp"

namespace onemodel::opt {
namespace {

using recurrent::DirectionWeights;

class RnnOptimized final : public RecurrentOverride {
 public:
  RnnOptimized(const NodeInfo& node, const OptimizedConfig& config) : RecurrentOverride(node, config, 1, false, {"Tanh"}) {}

 protected:
  void phase_one(const RecurrentRow& row, const DirectionWeights& w, std::int64_t hidden, Isa isa) const override {
    float* pre = row.work;
    for (std::int64_t j = 0; j < hidden; ++j) {
      float v = row.xw[j] + row.rec[j];
      if (w.wb != nullptr) {
        v = v + w.wb[j];
        v = v + w.rb[j];
      }
      pre[j] = v;
    }
    apply_clip_all(pre, hidden, attributes().clip);
    apply_activation(isa, attributes().activations[static_cast<std::size_t>(row.direction)][0], pre, row.h_new, hidden);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_rnn_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<RnnOptimized>(node, config);
}

}  // namespace onemodel::opt
