// The shared driver of the RNN, GRU and LSTM overrides (optimized/ops/op_rnn.cpp, op_gru.cpp,
// op_lstm.cpp): the whole sequence's input projection as one matrix product per direction, the
// recurrent product per step for the whole batch, both on the shared float32 GEMM
// (optimized/kernels/gemm/), with W and R packed once per plan when they are constants; then the
// cell arithmetic per batch row in the order of spec/ops/recurrent.md section 5, which the cells
// implement. Shapes, attributes, sequence_lens and initial states come from the reference's helpers
// (reference/ops/recurrent_helpers.hpp), so errors are the reference's.
//
// Exact mode: the GEMM's exact path forms each output as one accumulator from +0 over increasing k,
// product and sum rounded on their own (kernels-gemm.md), which is ordered_dot of the reference
// bit for bit; the cell arithmetic is the same IEEE operations in the same order; so the outputs
// are the reference's bits on every path and thread count. Fast mode differs only inside the GEMM.
#pragma once

#include <cstdint>
#include <memory>

#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/recurrent_helpers.hpp"

namespace onemodel::opt {

// One batch row at one step, as a cell sees it.
struct RecurrentRow {
  int direction = 0;
  const float* xw = nullptr;     // the row's input projection at its time step, G*H values
  const float* rec = nullptr;    // the first recurrent product H_prev * R^T (rec_columns() values)
  const float* rec_h = nullptr;  // GRU with linear_before_reset = 0: (r . H_prev) * Rh^T, H values
  const float* h_prev = nullptr;
  const float* c_prev = nullptr;  // LSTM only
  float* h_new = nullptr;
  float* c_new = nullptr;  // LSTM only
  float* work = nullptr;   // 2 * G * H floats of the row, kept from phase one to phase two
  float* reset = nullptr;  // GRU with linear_before_reset = 0: phase one writes r . H_prev here (H values)
};

class RecurrentOverride : public OptimizedKernel {
 public:
  RecurrentOverride(const NodeInfo& node, const OptimizedConfig& config, std::int64_t gates, bool lstm,
                    const std::vector<std::string>& default_activations);

  // W (and R) packed per direction when they are known at plan time.
  std::shared_ptr<const void> prepare(const InferContext& context) const override;
  void run(RunContext& context) const override;

 protected:
  const recurrent::RecurrentAttributes& attributes() const noexcept { return attributes_; }
  std::int64_t gates() const noexcept { return gates_; }

  // Columns of the per-step product H_prev * R^T: all G*H, except GRU with linear_before_reset = 0,
  // whose candidate columns are a second product after r is known (spec/ops/recurrent.md section 5).
  virtual bool split_candidate() const noexcept { return false; }
  // The cell before the second product (everything, for a cell without one).
  virtual void phase_one(const RecurrentRow& row, const recurrent::DirectionWeights& w, std::int64_t hidden,
                         Isa isa) const = 0;
  // The cell after the second product (split_candidate() cells only).
  virtual void phase_two(const RecurrentRow&, const recurrent::DirectionWeights&, std::int64_t, Isa) const {}

 private:
  recurrent::RecurrentAttributes attributes_;
  std::int64_t gates_;
  bool lstm_;
};

// out[j] = act(in[j]) for j < n, the reference's function (spec/ops/recurrent.md section 4):
// Sigmoid and Tanh on the vectorized exact kernels (optimized/kernels/elementwise/, the reference's
// bits on every path), the others element by element with the reference's Activation. in may be out.
void apply_activation(Isa isa, const recurrent::Activation& act, const float* in, float* out, std::int64_t n);

// v = clip(v) for v in [values, values + n) (recurrent::apply_clip; nothing without clip).
void apply_clip_all(float* values, std::int64_t n, const std::optional<float>& clip) noexcept;

}  // namespace onemodel::opt
