// GRU: gates z, r, h (spec/ops/recurrent.md section 5, "GRU"). z = f(pre_z), r = f(pre_r);
// the candidate's pre-activation depends on linear_before_reset; ht = g(pre_h);
// H = ((1 - z) * ht) + (z * H_prev), every operation rounded on its own. Default activations
// Sigmoid, Tanh. Opsets 7 and later (one implementation, section 1).
#include "reference/ops/recurrent_helpers.hpp"

namespace onemodel {
namespace {

using namespace recurrent;

class Gru final : public OpKernel {
 public:
  explicit Gru(const NodeInfo& node)
      : attributes_(parse_attributes(node, {"Sigmoid", "Tanh"})),
        linear_before_reset_(node.get_int("linear_before_reset", 0) != 0) {}
  void infer(InferContext& context) const override { infer_recurrent(context, attributes_, 3, false); }
  void run(RunContext& context) const override {
    const std::int64_t hidden = context.input(kR).shape()[2];
    const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
    // Scratch per call (the kernel keeps no state between runs).
    std::vector<float> z(at(hidden)), r(at(hidden)), reset_h(at(hidden));
    run_recurrent(context, attributes_, 3, false, [&](const CellStep& step, const DirectionWeights& w) {
      const auto& acts = attributes_.activations[static_cast<std::size_t>(step.direction)];
      const Activation& f = acts[0];
      const Activation& g = acts[1];
      // Gates z (rows 0..H-1) and r (rows H..2H-1): pre = ((xw + rec) + Wb) + Rb, clipped, f.
      for (std::int64_t gate = 0; gate < 2; ++gate) {
        std::vector<float>& out = gate == 0 ? z : r;
        for (std::int64_t j = 0; j < hidden; ++j) {
          const std::int64_t col = gate * hidden + j;
          const float rec = ordered_dot(step.h_prev, w.r + col * hidden, hidden);
          float pre = step.xw[col] + rec;
          if (w.wb != nullptr) {
            pre = pre + w.wb[col];
            pre = pre + w.rb[col];
          }
          out[at(j)] = f(apply_clip(pre, attributes_.clip));
        }
      }
      if (!linear_before_reset_) {
        // Section 5: the reset state r * H_prev, each product rounded, enters the candidate's dot.
        for (std::int64_t k = 0; k < hidden; ++k) reset_h[at(k)] = r[at(k)] * step.h_prev[k];
      }
      for (std::int64_t j = 0; j < hidden; ++j) {
        const std::int64_t col = 2 * hidden + j;
        float pre;
        if (!linear_before_reset_) {
          // pre_h = ((xw_h + (r . H_prev) * Rh^T) + Wbh) + Rbh
          const float rec = ordered_dot(reset_h.data(), w.r + col * hidden, hidden);
          pre = step.xw[col] + rec;
          if (w.wb != nullptr) {
            pre = pre + w.wb[col];
            pre = pre + w.rb[col];
          }
        } else {
          // pre_h = (xw_h + (r * (rec_h + Rbh))) + Wbh
          float rec = ordered_dot(step.h_prev, w.r + col * hidden, hidden);
          if (w.rb != nullptr) rec = rec + w.rb[col];
          const float gated = r[at(j)] * rec;
          pre = step.xw[col] + gated;
          if (w.wb != nullptr) pre = pre + w.wb[col];
        }
        const float ht = g(apply_clip(pre, attributes_.clip));
        const float zj = z[at(j)];
        const float keep = 1.0f - zj;
        const float fresh = keep * ht;
        const float old = zj * step.h_prev[j];
        step.h_new[j] = fresh + old;
      }
    });
  }

 private:
  RecurrentAttributes attributes_;
  bool linear_before_reset_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gru(const NodeInfo& node) { return std::make_unique<Gru>(node); }

}  // namespace onemodel
