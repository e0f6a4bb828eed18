// Shared helpers of RNN, GRU and LSTM (spec/ops/recurrent.md). See recurrent_helpers.hpp.
#include "reference/ops/recurrent_helpers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "reference/math/exact_math.hpp"
#include "reference/ops/element_reader.hpp"

namespace onemodel::recurrent {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct ActivationInfo {
  const char* name;
  ActivationKind kind;
  bool takes_alpha;
  bool takes_beta;
  float default_alpha;
  float default_beta;
};

// spec/ops/recurrent.md section 4: which activations take alpha and beta, and their defaults.
constexpr ActivationInfo kActivations[] = {
    {"sigmoid", ActivationKind::Sigmoid, false, false, 0.0f, 0.0f},
    {"tanh", ActivationKind::Tanh, false, false, 0.0f, 0.0f},
    {"relu", ActivationKind::Relu, false, false, 0.0f, 0.0f},
    {"affine", ActivationKind::Affine, true, true, 1.0f, 0.0f},
    {"leakyrelu", ActivationKind::LeakyRelu, true, false, 0.01f, 0.0f},
    {"thresholdedrelu", ActivationKind::ThresholdedRelu, true, false, 1.0f, 0.0f},
    {"scaledtanh", ActivationKind::ScaledTanh, true, true, 1.0f, 0.0f},
    {"hardsigmoid", ActivationKind::HardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", ActivationKind::Elu, true, false, 1.0f, 0.0f},
    {"softsign", ActivationKind::Softsign, false, false, 0.0f, 0.0f},
    {"softplus", ActivationKind::Softplus, false, false, 0.0f, 0.0f},
};

const ActivationInfo* find_activation(std::string_view name) {
  const std::string key = lower(name);
  for (const ActivationInfo& info : kActivations) {
    if (key == info.name) return &info;
  }
  return nullptr;
}

// The extents of a state tensor ([dirs, batch, hidden] in layout 0, [batch, dirs, hidden] in 1).
Shape state_shape(int layout, std::int64_t dirs, std::int64_t batch, std::int64_t hidden) {
  return layout == 0 ? Shape{dirs, batch, hidden} : Shape{batch, dirs, hidden};
}

// spec/ops/recurrent.md section 8: the per-direction scratch stays below 2^30 floats.
constexpr std::int64_t kScratchLimit = std::int64_t{1} << 30;

}  // namespace

float Activation::operator()(float x) const noexcept {
  switch (kind) {
    case ActivationKind::Sigmoid:
      return exact::sigmoid(x);
    case ActivationKind::Tanh:
      return exact::tanh(x);
    case ActivationKind::Relu:
      return x < 0.0f ? 0.0f : x;  // a NaN fails the compare and is kept
    case ActivationKind::Affine: {
      const float product = alpha * x;
      return product + beta;
    }
    case ActivationKind::LeakyRelu:
      return x < 0.0f ? alpha * x : x;
    case ActivationKind::ThresholdedRelu:
      return x > alpha ? x : 0.0f;
    case ActivationKind::ScaledTanh: {
      const float scaled = beta * x;
      return alpha * exact::tanh(scaled);
    }
    case ActivationKind::HardSigmoid: {
      const float product = alpha * x;
      float v = product + beta;
      if (v < 0.0f) v = 0.0f;  // max(0, v) and min(1, v) as compares: a NaN passes through
      if (v > 1.0f) v = 1.0f;
      return v;
    }
    case ActivationKind::Elu:
      if (x >= 0.0f) return x;
      return alpha * (exact::exp(x) - 1.0f);
    case ActivationKind::Softsign: {
      const float denominator = 1.0f + std::fabs(x);
      return x / denominator;
    }
    case ActivationKind::Softplus:
      if (x > 20.0f) return x;
      return exact::log(1.0f + exact::exp(x));
  }
  return x;
}

RecurrentAttributes parse_attributes(const NodeInfo& node, const std::vector<std::string>& defaults) {
  RecurrentAttributes a;
  const std::string direction = node.get_string("direction", "forward");
  if (direction == "forward") {
    a.direction = Direction::Forward;
  } else if (direction == "reverse") {
    a.direction = Direction::Reverse;
  } else if (direction == "bidirectional") {
    a.direction = Direction::Bidirectional;
    a.directions = 2;
  } else {
    node.fail_invalid("direction '" + direction + "' is not forward, reverse or bidirectional");
  }
  if (node.has("hidden_size")) {
    a.hidden_size = node.get_int("hidden_size", 0);
    if (a.hidden_size <= 0) node.fail_invalid("hidden_size must be positive");
  }
  const std::int64_t layout = node.get_int("layout", 0);
  if (layout != 0 && layout != 1) node.fail_invalid("layout must be 0 or 1");
  a.layout = static_cast<int>(layout);
  if (node.has("clip")) {
    const float clip = node.get_float("clip", 0.0f);
    if (clip > 0.0f) a.clip = clip;  // section 5: clip applies when present and positive
  }

  // Section 4: one set for every direction, or (bidirectional) one set per direction.
  const std::size_t per_direction = defaults.size();
  std::vector<std::string> names = node.get_strings("activations");
  const std::vector<float> alphas = node.get_floats("activation_alpha");
  const std::vector<float> betas = node.get_floats("activation_beta");
  const bool given = !names.empty();
  if (!given) names = defaults;
  if (names.size() != per_direction && !(a.directions == 2 && names.size() == 2 * per_direction)) {
    node.fail_invalid("activations lists " + std::to_string(names.size()) + " functions; expected " +
                      std::to_string(per_direction) + (a.directions == 2 ? " or " + std::to_string(2 * per_direction) : ""));
  }
  std::vector<Activation> parsed;
  std::size_t alpha_cursor = 0, beta_cursor = 0;  // section 4: separate cursors
  for (const std::string& name : names) {
    const ActivationInfo* info = find_activation(name);
    if (info == nullptr) node.fail_unsupported("activation '" + name + "' is not supported");
    Activation act;
    act.kind = info->kind;
    act.alpha = info->default_alpha;
    act.beta = info->default_beta;
    if (given && info->takes_alpha) {
      if (alpha_cursor < alphas.size()) act.alpha = alphas[alpha_cursor];
      ++alpha_cursor;
    }
    if (given && info->takes_beta) {
      if (beta_cursor < betas.size()) act.beta = betas[beta_cursor];
      ++beta_cursor;
    }
    parsed.push_back(act);
  }
  a.activations.resize(static_cast<std::size_t>(a.directions));
  for (int d = 0; d < a.directions; ++d) {
    const std::size_t first = names.size() == per_direction ? 0 : static_cast<std::size_t>(d) * per_direction;
    a.activations[static_cast<std::size_t>(d)].assign(parsed.begin() + static_cast<std::ptrdiff_t>(first),
                                                      parsed.begin() + static_cast<std::ptrdiff_t>(first + per_direction));
  }
  return a;
}

void infer_recurrent(InferContext& context, const RecurrentAttributes& a, std::int64_t gates, bool lstm) {
  const NodeInfo& node = context.node();
  const std::size_t last_input = lstm ? kP : kInitialH;
  if (context.input_count() > last_input + 1) node.fail_invalid("too many inputs");
  if (!context.has_input(kX) || !context.has_input(kW) || !context.has_input(kR)) node.fail_invalid("X, W and R are required");
  for (std::size_t i = 0; i <= last_input && i < context.input_count(); ++i) {
    if (!context.has_input(i)) continue;
    // Section 2: float32 data; sequence_lens int32.
    if (i == kSequenceLens) context.require_type(i, {DType::I32});
    else context.require_type(i, {DType::F32});
  }
  const Shape& x = context.input_shape(kX);
  const Shape& w = context.input_shape(kW);
  const Shape& r = context.input_shape(kR);
  if (x.rank() != 3) node.fail_invalid("X must be 3-D, got " + x.to_string());
  if (w.rank() != 3 || r.rank() != 3) node.fail_invalid("W and R must be 3-D");
  const std::int64_t dirs = a.directions;
  const std::int64_t seq = a.layout == 0 ? x[0] : x[1];
  const std::int64_t batch = a.layout == 0 ? x[1] : x[0];
  const std::int64_t input = x[2];
  const std::int64_t hidden = r[2];
  if (hidden == 0) node.fail_invalid("hidden size 0");
  if (a.hidden_size >= 0 && a.hidden_size != hidden) node.fail_invalid("hidden_size differs from R's last dimension");
  const std::int64_t gh = gates * hidden;
  if (w[0] != dirs || w[1] != gh || w[2] != input) {
    node.fail_invalid("W " + w.to_string() + " does not match [" + std::to_string(dirs) + ", " + std::to_string(gh) + ", " +
                      std::to_string(input) + "]");
  }
  if (r[0] != dirs || r[1] != gh) node.fail_invalid("R " + r.to_string() + " does not match the direction count and gates");
  if (context.has_input(kB)) {
    const Shape& b = context.input_shape(kB);
    if (b.rank() != 2 || b[0] != dirs || b[1] != 2 * gh) node.fail_invalid("B " + b.to_string() + " is not [dirs, 2 * gates * hidden]");
  }
  if (context.has_input(kSequenceLens)) {
    const Shape& s = context.input_shape(kSequenceLens);
    if (s.rank() != 1 || s[0] != batch) node.fail_invalid("sequence_lens " + s.to_string() + " is not [batch]");
  }
  const Shape state = state_shape(a.layout, dirs, batch, hidden);
  if (context.has_input(kInitialH) && !(context.input_shape(kInitialH) == state)) {
    node.fail_invalid("initial_h " + context.input_shape(kInitialH).to_string() + " is not " + state.to_string());
  }
  if (lstm && context.has_input(kInitialC) && !(context.input_shape(kInitialC) == state)) {
    node.fail_invalid("initial_c " + context.input_shape(kInitialC).to_string() + " is not " + state.to_string());
  }
  if (lstm && context.has_input(kP)) {
    const Shape& p = context.input_shape(kP);
    if (p.rank() != 2 || p[0] != dirs || p[1] != 3 * hidden) node.fail_invalid("P " + p.to_string() + " is not [dirs, 3 * hidden]");
  }
  // Section 8: the projections of one direction (seq * batch * G * H floats) stay below 2^30.
  // seq * batch <= 2^31 (X's element count) and G * H <= 2^31 (W's), so the product fits.
  if (seq * batch * gh >= kScratchLimit) node.fail_unsupported("the recurrent layer's scratch exceeds 2^30 floats");

  if (context.output_wanted(0)) {
    context.set_output(0, DType::F32, a.layout == 0 ? Shape{seq, dirs, batch, hidden} : Shape{batch, seq, dirs, hidden});
  }
  if (context.output_wanted(1)) context.set_output(1, DType::F32, state);
  if (lstm && context.output_wanted(2)) context.set_output(2, DType::F32, state);
  if (context.output_count() > (lstm ? 3u : 2u)) node.fail_invalid("too many outputs");
}

float ordered_dot(const float* a, const float* b, std::int64_t n) noexcept {
  float acc = 0.0f;  // +0 (exact-mode.md rule 3)
  for (std::int64_t k = 0; k < n; ++k) {
    const float product = a[k] * b[k];
    acc = acc + product;
  }
  return acc;
}

float apply_clip(float value, const std::optional<float>& clip) noexcept {
  if (!clip) return value;
  if (value < -*clip) return -*clip;
  if (value > *clip) return *clip;
  return value;  // NaN fails both compares and passes through
}

void sequence_lengths_into(const RunContext& context, std::int64_t seq, std::int64_t batch,
                           std::span<std::int64_t> lengths) {
  const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  // Section 6: sequence_lens, each in [0, seq] (else InvalidInput); all seq when absent.
  std::fill(lengths.begin(), lengths.begin() + batch, seq);
  if (context.has_input(kSequenceLens)) {
    const Tensor& given = context.input(kSequenceLens);
    ew::ElementReader<std::int32_t> reader(given, given.shape());
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t len = reader.next();
      if (len < 0 || len > seq) {
        throw SessionError(SessionErrorKind::InvalidInput,
                           "sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) + " is outside [0, " +
                               std::to_string(seq) + "]",
                           context.node().name());
      }
      lengths[at(b)] = len;
    }
  }
}

std::vector<std::int64_t> sequence_lengths(const RunContext& context, std::int64_t seq, std::int64_t batch) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(batch));
  sequence_lengths_into(context, seq, batch, lengths);
  return lengths;
}

void load_state_into(const RunContext& context, std::size_t index, int layout, std::int64_t dirs, std::int64_t batch,
                     std::int64_t hidden, std::span<float> out) {
  const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  // Initial states in layout 0 ([dirs][batch][hidden]); zeros when omitted (section 6).
  std::fill(out.begin(), out.begin() + dirs * batch * hidden, 0.0f);
  if (!context.has_input(index)) return;
  const Tensor state = context.input(index).contiguous();
  const std::span<const float> raw = state.data<float>();
  for (std::int64_t d = 0; d < dirs; ++d) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t src = layout == 0 ? (d * batch + b) * hidden : (b * dirs + d) * hidden;
      for (std::int64_t j = 0; j < hidden; ++j) out[at((d * batch + b) * hidden + j)] = raw[at(src + j)];
    }
  }
}

std::vector<float> load_state(const RunContext& context, std::size_t index, int layout, std::int64_t dirs,
                              std::int64_t batch, std::int64_t hidden) {
  std::vector<float> out(static_cast<std::size_t>(dirs * batch * hidden), 0.0f);
  load_state_into(context, index, layout, dirs, batch, hidden, out);
  return out;
}

void run_recurrent(RunContext& context, const RecurrentAttributes& a, std::int64_t gates, bool lstm, const CellFunction& cell) {
  const Tensor& x_t = context.input(kX);
  const std::int64_t dirs = a.directions;
  const std::int64_t seq = a.layout == 0 ? x_t.shape()[0] : x_t.shape()[1];
  const std::int64_t batch = a.layout == 0 ? x_t.shape()[1] : x_t.shape()[0];
  const std::int64_t input = x_t.shape()[2];
  const std::int64_t hidden = context.input(kR).shape()[2];
  const std::int64_t gh = gates * hidden;
  const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };

  // X in layout 0: [seq][batch][input].
  const std::vector<float> x_raw = x_t.to_vector<float>();
  std::vector<float> x(x_raw.size());
  for (std::int64_t t = 0; t < seq; ++t) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t src = a.layout == 0 ? (t * batch + b) * input : (b * seq + t) * input;
      const std::int64_t dst = (t * batch + b) * input;
      for (std::int64_t k = 0; k < input; ++k) x[at(dst + k)] = x_raw[at(src + k)];
    }
  }
  const std::vector<float> w = context.input(kW).to_vector<float>();
  const std::vector<float> r = context.input(kR).to_vector<float>();
  const std::vector<float> bias = context.has_input(kB) ? context.input(kB).to_vector<float>() : std::vector<float>{};
  const bool has_p = lstm && context.has_input(kP);
  const std::vector<float> p = has_p ? context.input(kP).to_vector<float>() : std::vector<float>{};

  const std::vector<std::int64_t> lengths = sequence_lengths(context, seq, batch);

  const std::vector<float> initial_h = load_state(context, kInitialH, a.layout, dirs, batch, hidden);
  const std::vector<float> initial_c = lstm ? load_state(context, kInitialC, a.layout, dirs, batch, hidden)
                                            : std::vector<float>(at(dirs * batch * hidden), 0.0f);

  // Section 7: every stored float32 NaN is canonical in exact mode.
  const bool exact = context.exact();
  const auto store = [exact](float v) { return exact ? canonical_nan_f32(v) : v; };
  float* y = context.output_wanted(0) ? context.output(0).mutable_data<float>().data() : nullptr;
  float* y_h = context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
  float* y_c = lstm && context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
  if (y != nullptr) {
    // Section 6: Y is zero at the steps a row does not run.
    for (std::int64_t i = 0; i < seq * dirs * batch * hidden; ++i) y[i] = 0.0f;
  }
  const auto y_index = [&](std::int64_t t, std::int64_t d, std::int64_t b) {
    return a.layout == 0 ? ((t * dirs + d) * batch + b) * hidden : ((b * seq + t) * dirs + d) * hidden;
  };
  const auto state_index = [&](std::int64_t d, std::int64_t b) {
    return a.layout == 0 ? (d * batch + b) * hidden : (b * dirs + d) * hidden;
  };

  std::vector<float> xw(at(seq * batch * gh));
  std::vector<float> h(at(batch * hidden)), c(at(batch * hidden)), h_next(at(hidden)), c_next(at(hidden));
  for (std::int64_t d = 0; d < dirs; ++d) {
    const bool reverse = a.direction == Direction::Reverse || d == 1;
    const float* w_d = w.data() + d * gh * input;
    DirectionWeights weights;
    weights.r = r.data() + d * gh * hidden;
    if (!bias.empty()) {
      weights.wb = bias.data() + d * 2 * gh;
      weights.rb = weights.wb + gh;
    }
    if (has_p) weights.p = p.data() + d * 3 * hidden;

    // Section 5 step 1: XW = X * W^T for all steps, one ordered dot product per output.
    for (std::int64_t row = 0; row < seq * batch; ++row) {
      for (std::int64_t col = 0; col < gh; ++col) {
        xw[at(row * gh + col)] = ordered_dot(x.data() + row * input, w_d + col * input, input);
      }
    }
    std::copy(initial_h.begin() + d * batch * hidden, initial_h.begin() + (d + 1) * batch * hidden, h.begin());
    std::copy(initial_c.begin() + d * batch * hidden, initial_c.begin() + (d + 1) * batch * hidden, c.begin());

    // Section 6: row b runs its first len_b steps; in reverse from step len_b - 1 down to 0.
    for (std::int64_t s = 0; s < seq; ++s) {
      for (std::int64_t b = 0; b < batch; ++b) {
        const std::int64_t len = lengths[at(b)];
        if (s >= len) continue;
        const std::int64_t t = reverse ? len - 1 - s : s;
        CellStep step;
        step.direction = static_cast<int>(d);
        step.xw = xw.data() + (t * batch + b) * gh;
        step.h_prev = h.data() + b * hidden;
        step.h_new = h_next.data();
        if (lstm) {
          step.c_prev = c.data() + b * hidden;
          step.c_new = c_next.data();
        }
        cell(step, weights);
        std::copy(h_next.begin(), h_next.end(), h.begin() + b * hidden);
        if (lstm) std::copy(c_next.begin(), c_next.end(), c.begin() + b * hidden);
        if (y != nullptr) {
          for (std::int64_t j = 0; j < hidden; ++j) y[y_index(t, d, b) + j] = store(h_next[at(j)]);
        }
      }
    }
    // Section 6: the final state is the one after the row's last step; a row of length 0 has zero
    // final states, except that seq = 0 runs nothing and leaves the initial states.
    for (std::int64_t b = 0; b < batch; ++b) {
      const bool zero = seq > 0 && lengths[at(b)] == 0;
      for (std::int64_t j = 0; j < hidden; ++j) {
        if (y_h != nullptr) y_h[state_index(d, b) + j] = zero ? 0.0f : store(h[at(b * hidden + j)]);
        if (y_c != nullptr) y_c[state_index(d, b) + j] = zero ? 0.0f : store(c[at(b * hidden + j)]);
      }
    }
  }
}

}  // namespace onemodel::recurrent
