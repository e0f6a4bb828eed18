// The shared driver of the recurrent overrides (spec/ops/recurrent.md sections 5-8). See
// recurrent_override.hpp.
#include "optimized/ops/recurrent_override.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {
namespace {

using recurrent::Direction;
using recurrent::DirectionWeights;
using recurrent::kB;
using recurrent::kInitialC;
using recurrent::kInitialH;
using recurrent::kP;
using recurrent::kR;
using recurrent::kW;
using recurrent::kX;

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

const float* contiguous_f32(const Tensor& t, Tensor& holder) {
  if (t.element_count() == 0) return nullptr;
  if (t.is_contiguous()) return t.data<float>().data();
  holder = t.contiguous();
  return holder.data<float>().data();
}

// B' of the input projection: element (p, col) = W[d][col][p] (W^T without a copy).
MatrixView w_view(const float* w_d, std::int64_t input) { return MatrixView{w_d, 1, static_cast<std::ptrdiff_t>(input)}; }
// B' of a recurrent product from R's row `first`: element (p, j) = R[d][first + j][p].
MatrixView r_view(const float* r_d, std::int64_t first, std::int64_t hidden) {
  return MatrixView{r_d + first * hidden, 1, static_cast<std::ptrdiff_t>(hidden)};
}

// What prepare() packs: per direction, W^T [input, G*H] and R^T [H, rec columns] (and, for GRU with
// linear_before_reset = 0, Rh^T [H, H]). Empty vectors: that weight was not constant.
struct RecurrentPacks {
  std::vector<PackedB> w;
  std::vector<PackedB> r;
  std::vector<PackedB> r_h;
};

}  // namespace

void apply_activation(Isa isa, const recurrent::Activation& act, const float* in, float* out, std::int64_t n) {
  using recurrent::ActivationKind;
  if (n <= 0) return;
  if (act.kind == ActivationKind::Sigmoid || act.kind == ActivationKind::Tanh) {
    // The elementwise kernels give exact::sigmoid / exact::tanh bits on every path and mode
    // (elementwise.hpp), as Activation::operator() computes them (NaN payloads aside: a NaN is
    // stored canonical there, which changes no value and is canonical in the outputs anyway).
    const ew::UnaryArgs args{act.kind == ActivationKind::Sigmoid ? ew::UnaryOp::Sigmoid : ew::UnaryOp::Tanh};
    ew::unary_f32_run(isa, args, in, out, static_cast<std::size_t>(n));
    return;
  }
  for (std::int64_t j = 0; j < n; ++j) out[j] = act(in[j]);
}

void apply_clip_all(float* values, std::int64_t n, const std::optional<float>& clip) noexcept {
  if (!clip) return;
  for (std::int64_t j = 0; j < n; ++j) values[j] = recurrent::apply_clip(values[j], clip);
}

RecurrentOverride::RecurrentOverride(const NodeInfo& node, const OptimizedConfig& config, std::int64_t gates, bool lstm,
                                     const std::vector<std::string>& default_activations)
    : OptimizedKernel(node, config),
      attributes_(recurrent::parse_attributes(node, default_activations)),
      gates_(gates),
      lstm_(lstm) {}

std::shared_ptr<const void> RecurrentOverride::prepare(const InferContext& context) const {
  // infer() (the reference's) has checked every type and shape by now.
  const Tensor* w = context.known_value(kW);
  const Tensor* r = context.known_value(kR);
  auto packs = std::make_shared<RecurrentPacks>();
  const std::int64_t dirs = attributes_.directions;
  if (w != nullptr && w->dtype() == DType::F32 && w->rank() == 3 && w->shape()[2] > 0) {
    const std::int64_t gh = w->shape()[1], input = w->shape()[2];
    Tensor holder;
    const float* data = contiguous_f32(*w, holder);
    for (std::int64_t d = 0; d < dirs; ++d) {
      packs->w.push_back(pack_b_f32(config().isa, at(input), at(gh), w_view(data + d * gh * input, input)));
    }
  }
  if (r != nullptr && r->dtype() == DType::F32 && r->rank() == 3) {
    const std::int64_t hidden = r->shape()[2];
    const std::int64_t first_columns = split_candidate() ? 2 * hidden : gates_ * hidden;
    Tensor holder;
    const float* data = contiguous_f32(*r, holder);
    for (std::int64_t d = 0; d < dirs; ++d) {
      const float* r_d = data + d * gates_ * hidden * hidden;
      packs->r.push_back(pack_b_f32(config().isa, at(hidden), at(first_columns), r_view(r_d, 0, hidden)));
      if (split_candidate()) {
        packs->r_h.push_back(pack_b_f32(config().isa, at(hidden), at(hidden), r_view(r_d, 2 * hidden, hidden)));
      }
    }
  }
  if (packs->w.empty() && packs->r.empty()) return nullptr;
  return packs;
}

void RecurrentOverride::run(RunContext& context) const {
  const Tensor& x_t = context.input(kX);
  const recurrent::RecurrentAttributes& a = attributes_;
  const std::int64_t dirs = a.directions;
  const std::int64_t seq = a.layout == 0 ? x_t.shape()[0] : x_t.shape()[1];
  const std::int64_t batch = a.layout == 0 ? x_t.shape()[1] : x_t.shape()[0];
  // Section 6, zero-size: nothing runs, the final states are the initial ones: the reference's.
  if (seq == 0 || batch == 0) return run_reference(context);
  const std::int64_t input = x_t.shape()[2];
  const std::int64_t hidden = context.input(kR).shape()[2];
  const std::int64_t gh = gates_ * hidden;
  const bool split = split_candidate();
  const std::int64_t rec_columns = split ? 2 * hidden : gh;

  // Section 6: the row lengths, each checked (InvalidInput) by the reference's helper.
  // The row lengths and the rows active at a step, on run scratch (a warm run allocates nothing,
  // graph-runtime.md section 4).
  // The rows active at a step are per direction (bidirectional nodes run both at once, below).
  Tensor index_scratch = context.scratch(DType::I64, Shape{(1 + dirs) * batch});
  const std::span<std::int64_t> lengths = index_scratch.mutable_data<std::int64_t>().subspan(0, at(batch));
  const std::span<std::int64_t> active_all = index_scratch.mutable_data<std::int64_t>().subspan(at(batch));
  recurrent::sequence_lengths_into(context, seq, batch, lengths);
  const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());

  Tensor x_holder, w_holder, r_holder, b_holder, p_holder;
  const float* x = contiguous_f32(x_t, x_holder);
  const float* w = contiguous_f32(context.input(kW), w_holder);
  const float* r = contiguous_f32(context.input(kR), r_holder);
  const float* bias = context.has_input(kB) ? contiguous_f32(context.input(kB), b_holder) : nullptr;
  const float* p = lstm_ && context.has_input(kP) ? contiguous_f32(context.input(kP), p_holder) : nullptr;

  // Section 7: every NaN stored to Y, Y_h, Y_c is canonical in exact mode.
  const bool exact = context.exact();
  const auto store = [exact](float v) { return exact ? canonical_nan_f32(v) : v; };
  float* y = context.output_wanted(0) ? context.output(0).mutable_data<float>().data() : nullptr;
  float* y_h = context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
  float* y_c = lstm_ && context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
  if (y != nullptr) std::fill(y, y + seq * dirs * batch * hidden, 0.0f);  // zero at steps a row does not run
  const auto y_index = [&](std::int64_t t, std::int64_t d, std::int64_t b) {
    return a.layout == 0 ? ((t * dirs + d) * batch + b) * hidden : ((b * seq + t) * dirs + d) * hidden;
  };
  const auto state_index = [&](std::int64_t d, std::int64_t b) {
    return a.layout == 0 ? (d * batch + b) * hidden : (b * dirs + d) * hidden;
  };
  // Row (t, b) of the projections: X's own row order, so X is read in place in either layout.
  const auto xw_row = [&](std::int64_t t, std::int64_t b) { return a.layout == 0 ? t * batch + b : b * seq + t; };

  // Both directions of a bidirectional node run at once, one per thread, each with its own
  // scratch and its products on that thread alone: the steps of one direction are a chain of small
  // products (a batch of 1-8 rows against R) that a second thread barely shortens, while the two
  // directions share nothing but the read-only inputs and write disjoint parts of Y, Y_h and Y_c.
  // Each direction computes exactly what it computed alone (the product's bits do not depend on its
  // threads: kernels-gemm.md, "Fixed chunks"), so nothing changes with the thread count.
  // Section 8: the projections (seq * batch * G * H floats per direction, below 2^30 by infer()) on
  // run scratch.
  Tensor xw_t = context.scratch(DType::F32, Shape{dirs * seq * batch, gh});
  float* const xw_all = xw_t.mutable_data<float>().data();
  // The states and per-step buffers, one zeroed run scratch carved in order (as the vectors they
  // replace were zeroed): initial H and C in layout 0, then per direction the recurrent products,
  // r . H_prev, the cell's work rows, H and C and their next values.
  const std::int64_t states = dirs * batch * hidden;
  const std::int64_t rows = batch * hidden;
  const std::int64_t lane_parts[] = {batch * rec_columns, split ? rows : 0, split ? rows : 0, batch * 2 * gh, rows, rows,
                                     lstm_ ? rows : 0,    lstm_ ? rows : 0};
  std::int64_t per_lane = 0;
  for (const std::int64_t n : lane_parts) per_lane += n;
  const std::int64_t shared = states + (lstm_ ? states : 0);
  Tensor float_scratch = context.scratch(DType::F32, Shape{shared + dirs * per_lane});
  const std::span<float> all = float_scratch.mutable_data<float>();
  std::fill(all.begin(), all.end(), 0.0f);
  const std::span<float> initial_h = all.subspan(0, at(states));
  const std::span<float> initial_c = all.subspan(at(states), lstm_ ? at(states) : 0);
  recurrent::load_state_into(context, kInitialH, a.layout, dirs, batch, hidden, initial_h);
  if (lstm_) recurrent::load_state_into(context, kInitialC, a.layout, dirs, batch, hidden, initial_c);

  const KernelContext whole = kernel_context(context);
  const auto* packs = static_cast<const RecurrentPacks*>(context.state());
  const MatrixView x_view{x, static_cast<std::ptrdiff_t>(input), 1};

  const auto run_direction = [&](std::int64_t d, const KernelContext& kc) {
    float* const xw = xw_all + d * seq * batch * gh;
    std::size_t used = at(shared + d * per_lane), next_part = 0;
    const auto carve = [&]() {
      const std::span<float> part = all.subspan(used, at(lane_parts[next_part]));
      used += at(lane_parts[next_part++]);
      return part;
    };
    const std::span<float> rec = carve(), rec_h = carve(), reset = carve(), work = carve(), h = carve(),
                           h_next = carve(), c = carve(), c_next = carve();
    const std::span<std::int64_t> active_rows = active_all.subspan(at(d * batch), at(batch));
    const MatrixView h_view{h.data(), static_cast<std::ptrdiff_t>(hidden), 1};
    const MatrixView reset_view{reset.data(), static_cast<std::ptrdiff_t>(hidden), 1};
    const bool reverse = a.direction == Direction::Reverse || d == 1;
    DirectionWeights weights;
    weights.r = r + d * gh * hidden;
    if (bias != nullptr) {
      weights.wb = bias + d * 2 * gh;
      weights.rb = weights.wb + gh;
    }
    if (p != nullptr) weights.p = p + d * 3 * hidden;

    // Section 5 step 1: XW = X * W^T for every step and row, one product.
    if (input == 0) {
      std::fill(xw, xw + seq * batch * gh, 0.0f);  // an empty dot product is +0
    } else if (packs != nullptr && !packs->w.empty()) {
      gemm_f32_packed(kc, at(seq * batch), x_view, packs->w[at(d)], xw, static_cast<std::ptrdiff_t>(gh));
    } else {
      gemm_f32(kc, at(seq * batch), at(gh), at(input), x_view, w_view(w + d * gh * input, input), xw,
               static_cast<std::ptrdiff_t>(gh));
    }
    // R^T packed: the plan's, or packed here once for all steps of this run.
    PackedB r_local, r_h_local;
    const PackedB* r_packed = nullptr;
    const PackedB* r_h_packed = nullptr;
    if (packs != nullptr && !packs->r.empty()) {
      r_packed = &packs->r[at(d)];
      if (split) r_h_packed = &packs->r_h[at(d)];
    } else {
      r_local = pack_b_f32(kc.isa, at(hidden), at(rec_columns), r_view(weights.r, 0, hidden));
      r_packed = &r_local;
      if (split) {
        r_h_local = pack_b_f32(kc.isa, at(hidden), at(hidden), r_view(weights.r, 2 * hidden, hidden));
        r_h_packed = &r_h_local;
      }
    }

    std::copy(initial_h.begin() + d * batch * hidden, initial_h.begin() + (d + 1) * batch * hidden, h.begin());
    if (lstm_) std::copy(initial_c.begin() + d * batch * hidden, initial_c.begin() + (d + 1) * batch * hidden, c.begin());

    const auto row_step = [&](std::int64_t s, std::int64_t b) {
      const std::int64_t len = lengths[at(b)];
      const std::int64_t t = reverse ? len - 1 - s : s;  // section 6: reverse starts at len_b - 1
      RecurrentRow row;
      row.direction = static_cast<int>(d);
      row.xw = xw + xw_row(t, b) * gh;
      row.rec = rec.data() + b * rec_columns;
      if (split) {
        row.rec_h = rec_h.data() + b * hidden;
        row.reset = reset.data() + b * hidden;
      }
      row.h_prev = h.data() + b * hidden;
      row.h_new = h_next.data() + b * hidden;
      if (lstm_) {
        row.c_prev = c.data() + b * hidden;
        row.c_new = c_next.data() + b * hidden;
      }
      row.work = work.data() + b * 2 * gh;
      return row;
    };

    // Section 6: row b runs steps 0 .. len_b - 1.
    for (std::int64_t s = 0; s < longest; ++s) {
      std::size_t active_count = 0;
      for (std::int64_t b = 0; b < batch; ++b) {
        if (s < lengths[at(b)]) active_rows[active_count++] = b;
      }
      const std::span<const std::int64_t> active = active_rows.first(active_count);
      // Section 5 step 2: the recurrent product of the whole batch (rows that have finished give
      // values nobody reads).
      gemm_f32_packed(kc, at(batch), h_view, *r_packed, rec.data(), static_cast<std::ptrdiff_t>(rec_columns));
      for (const std::int64_t b : active) phase_one(row_step(s, b), weights, hidden, kc.isa);
      if (split) {
        gemm_f32_packed(kc, at(batch), reset_view, *r_h_packed, rec_h.data(), static_cast<std::ptrdiff_t>(hidden));
        for (const std::int64_t b : active) phase_two(row_step(s, b), weights, hidden, kc.isa);
      }
      for (const std::int64_t b : active) {
        const std::int64_t t = reverse ? lengths[at(b)] - 1 - s : s;
        const float* h_row = h_next.data() + b * hidden;
        std::copy(h_row, h_row + hidden, h.begin() + b * hidden);
        if (lstm_) std::copy(c_next.begin() + b * hidden, c_next.begin() + (b + 1) * hidden, c.begin() + b * hidden);
        if (y != nullptr) {
          float* out = y + y_index(t, d, b);
          for (std::int64_t j = 0; j < hidden; ++j) out[j] = store(h_row[j]);
        }
      }
    }
    // Section 6: the state after the row's last step; a row of length 0 has zero final states.
    for (std::int64_t b = 0; b < batch; ++b) {
      const bool zero = lengths[at(b)] == 0;
      for (std::int64_t j = 0; j < hidden; ++j) {
        if (y_h != nullptr) y_h[state_index(d, b) + j] = zero ? 0.0f : store(h[at(b * hidden + j)]);
        if (y_c != nullptr) y_c[state_index(d, b) + j] = zero ? 0.0f : store(c[at(b * hidden + j)]);
      }
    }
  };

  if (dirs == 1) return run_direction(0, whole);
  // One chunk per direction, each direction's products on its chunk's thread alone. The estimate:
  // both directions' multiply-adds at kernels-gemm.md's 40 a nanosecond, plus about a nanosecond
  // per gate value of cell arithmetic per step and row.
  const KernelContext alone{whole.isa, whole.exact, nullptr};
  const double macs = static_cast<double>(dirs) * static_cast<double>(seq * batch) * static_cast<double>(gh) *
                      static_cast<double>(input + rec_columns);
  const double estimate = macs / 40.0 + static_cast<double>(dirs * seq * batch * gh);
  whole.parallel_for(at(dirs), estimate, [&](std::size_t d) { run_direction(static_cast<std::int64_t>(d), alone); });
}

}  // namespace onemodel::opt
