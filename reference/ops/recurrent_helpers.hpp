// Shared helpers of the recurrent operators RNN, GRU and LSTM (spec/ops/recurrent.md): the
// attributes they share, the activation functions, the shape rules, the input projection and
// recurrent dot products in the exact order, and the driver that walks directions, steps, rows,
// sequence_lens and the two layouts. The cell arithmetic itself stays in op_rnn.cpp, op_gru.cpp
// and op_lstm.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"

namespace onemodel::recurrent {

// spec/ops/recurrent.md section 4: the supported activation functions.
enum class ActivationKind { Sigmoid, Tanh, Relu, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus };

struct Activation {
  ActivationKind kind = ActivationKind::Tanh;
  float alpha = 0.0f;
  float beta = 0.0f;
  // The function as spec/ops/recurrent.md section 4 defines it (IEEE operations in the written
  // order; exact transcendentals).
  float operator()(float x) const noexcept;
};

enum class Direction { Forward, Reverse, Bidirectional };

// The attributes every recurrent operator has (spec/ops/recurrent.md section 2).
struct RecurrentAttributes {
  Direction direction = Direction::Forward;
  int directions = 1;                 // 1, or 2 for bidirectional
  std::int64_t hidden_size = -1;      // -1 when the attribute is absent
  int layout = 0;                     // 0 or 1
  std::optional<float> clip;          // present and positive only
  // activations[d][k]: the k-th function (f, g, h) of direction d (0 forward, 1 reverse).
  std::vector<std::vector<Activation>> activations;
};

// Parses direction, hidden_size, layout, clip, activations, activation_alpha, activation_beta.
// `defaults` are the operator's default activation names (one set for one direction).
RecurrentAttributes parse_attributes(const NodeInfo& node, const std::vector<std::string>& defaults);

// The sizes of one node's run (spec/ops/recurrent.md section 3).
struct RecurrentShapes {
  std::int64_t seq = 0;
  std::int64_t batch = 0;
  std::int64_t input = 0;
  std::int64_t hidden = 0;
};

// Input positions in the ONNX order (LSTM also has initial_c at 6 and P at 7).
inline constexpr std::size_t kX = 0, kW = 1, kR = 2, kB = 3, kSequenceLens = 4, kInitialH = 5, kInitialC = 6, kP = 7;

// Checks every input's type and shape against `gates` gates and states the outputs Y, Y_h and
// (when `state_outputs` is 2, LSTM) Y_c (spec/ops/recurrent.md section 3).
void infer_recurrent(InferContext& context, const RecurrentAttributes& attributes, std::int64_t gates, bool lstm);

// What a cell sees for one row at one step: the input projection of that row and step (G*H values),
// the previous state, and where the new state goes. `c_prev`/`c_new` are null for RNN and GRU.
struct CellStep {
  int direction = 0;
  const float* xw = nullptr;
  const float* h_prev = nullptr;
  const float* c_prev = nullptr;
  float* h_new = nullptr;
  float* c_new = nullptr;
};

// The weights of one direction, layout-0 row-major: R [G*H, H]; Wb and Rb the two halves of B
// (null when B is absent); P [3*H] (null when absent).
struct DirectionWeights {
  const float* r = nullptr;
  const float* wb = nullptr;
  const float* rb = nullptr;
  const float* p = nullptr;
};

// sum_{k=0}^{n-1} a[k] * b[k], one accumulator from +0, increasing k, each product and sum rounded
// on its own (spec/ops/recurrent.md section 5, exact-mode.md "Matrix product").
float ordered_dot(const float* a, const float* b, std::int64_t n) noexcept;

// clip applied to a gate's pre-activation: clamps to [-clip, clip]; NaN passes through
// (spec/ops/recurrent.md section 5).
float apply_clip(float value, const std::optional<float>& clip) noexcept;

// The row lengths of a run: sequence_lens (each checked to lie in [0, seq], else InvalidInput
// naming the row) or seq for every row when the input is absent (spec/ops/recurrent.md section 6).
// Shared by the reference driver and the optimized override, so both refuse the same way.
std::vector<std::int64_t> sequence_lengths(const RunContext& context, std::int64_t seq, std::int64_t batch);
// The same into `lengths` (at least batch values): no allocation, for the optimized override.
void sequence_lengths_into(const RunContext& context, std::int64_t seq, std::int64_t batch,
                           std::span<std::int64_t> lengths);

// Input `index` (initial_h or initial_c) in layout 0, [dirs][batch][hidden]; zeros when omitted
// (spec/ops/recurrent.md section 6).
std::vector<float> load_state(const RunContext& context, std::size_t index, int layout, std::int64_t dirs,
                              std::int64_t batch, std::int64_t hidden);
// The same into `out` (at least dirs * batch * hidden values).
void load_state_into(const RunContext& context, std::size_t index, int layout, std::int64_t dirs, std::int64_t batch,
                     std::int64_t hidden, std::span<float> out);

// Runs the whole node: loads the inputs in layout 0, forms the input projections, walks each
// direction's steps and rows under sequence_lens, calls `cell` per (row, step), and stores Y, Y_h,
// Y_c in the node's layout with canonical NaN in exact mode (spec/ops/recurrent.md sections 5-7).
using CellFunction = std::function<void(const CellStep&, const DirectionWeights&)>;
void run_recurrent(RunContext& context, const RecurrentAttributes& attributes, std::int64_t gates, bool lstm,
                   const CellFunction& cell);

}  // namespace onemodel::recurrent
