// GRU override on the recurrent driver (optimized/ops/recurrent_override.hpp): gates z, r, h per
// batch row in the order of spec/ops/recurrent.md section 5 "GRU", the reference's
// (reference/ops/op_gru.cpp) operation for operation. linear_before_reset = 0: the driver forms
// only the z and r columns of H_prev * R^T, phase one writes r . H_prev, the driver multiplies it
// by Rh^T for the whole batch, and phase two forms pre_h = ((xw_h + that) + Wbh) + Rbh.
// linear_before_reset = 1: pre_h = (xw_h + (r * (rec_h + Rbh))) + Wbh, all in phase one. Then
// ht = g(pre_h), H = ((1 - z) * ht) + (z * H_prev), each operation rounded on its own.
#include "optimized/ops/recurrent_override.hpp"

namespace onemodel::opt {
namespace {

using recurrent::DirectionWeights;

class GruOptimized final : public RecurrentOverride {
 public:
  GruOptimized(const NodeInfo& node, const OptimizedConfig& config)
      : RecurrentOverride(node, config, 3, false, {"Sigmoid", "Tanh"}),
        linear_before_reset_(node.get_int("linear_before_reset", 0) != 0) {}

 protected:
  bool split_candidate() const noexcept override { return !linear_before_reset_; }

  // work: [0, 2H) the z and r pre-activations, then [3H, 4H) z, [4H, 5H) r, [5H, 6H) the candidate.
  void phase_one(const RecurrentRow& row, const DirectionWeights& w, std::int64_t hidden, Isa isa) const override {
    const auto& acts = attributes().activations[static_cast<std::size_t>(row.direction)];
    float* pre = row.work;
    float* z = row.work + 3 * hidden;
    float* r = row.work + 4 * hidden;
    for (std::int64_t col = 0; col < 2 * hidden; ++col) {
      float v = row.xw[col] + row.rec[col];
      if (w.wb != nullptr) {
        v = v + w.wb[col];
        v = v + w.rb[col];
      }
      pre[col] = v;
    }
    apply_clip_all(pre, 2 * hidden, attributes().clip);
    apply_activation(isa, acts[0], pre, z, hidden);
    apply_activation(isa, acts[0], pre + hidden, r, hidden);
    if (!linear_before_reset_) {
      // The reset state r . H_prev, each product rounded, enters the candidate's product.
      for (std::int64_t k = 0; k < hidden; ++k) row.reset[k] = r[k] * row.h_prev[k];
      return;
    }
    float* pre_h = row.work + 5 * hidden;
    for (std::int64_t j = 0; j < hidden; ++j) {
      const std::int64_t col = 2 * hidden + j;
      float rec = row.rec[col];
      if (w.rb != nullptr) rec = rec + w.rb[col];
      const float gated = r[j] * rec;
      float v = row.xw[col] + gated;
      if (w.wb != nullptr) v = v + w.wb[col];
      pre_h[j] = v;
    }
    update(row, hidden, isa);
  }

  void phase_two(const RecurrentRow& row, const DirectionWeights& w, std::int64_t hidden, Isa isa) const override {
    float* pre_h = row.work + 5 * hidden;
    for (std::int64_t j = 0; j < hidden; ++j) {
      const std::int64_t col = 2 * hidden + j;
      float v = row.xw[col] + row.rec_h[j];
      if (w.wb != nullptr) {
        v = v + w.wb[col];
        v = v + w.rb[col];
      }
      pre_h[j] = v;
    }
    update(row, hidden, isa);
  }

 private:
  // ht = g(clip(pre_h)); H = ((1 - z) * ht) + (z * H_prev).
  void update(const RecurrentRow& row, std::int64_t hidden, Isa isa) const {
    const auto& acts = attributes().activations[static_cast<std::size_t>(row.direction)];
    const float* z = row.work + 3 * hidden;
    float* pre_h = row.work + 5 * hidden;
    apply_clip_all(pre_h, hidden, attributes().clip);
    float* ht = row.work;  // the z and r pre-activations are spent
    apply_activation(isa, acts[1], pre_h, ht, hidden);
    for (std::int64_t j = 0; j < hidden; ++j) {
      const float keep = 1.0f - z[j];
      const float fresh = keep * ht[j];
      const float old = z[j] * row.h_prev[j];
      row.h_new[j] = fresh + old;
    }
  }

  bool linear_before_reset_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gru_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<GruOptimized>(node, config);
}

}  // namespace onemodel::opt
