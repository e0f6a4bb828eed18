// Differential tests of the RNN, GRU and LSTM overrides (optimized/ops/op_rnn.cpp, op_gru.cpp,
// op_lstm.cpp on optimized/ops/recurrent_override.cpp) against the reference kernels
// (reference/ops/op_*.cpp), through diff/op_harness.hpp: in exact mode the same bits on every
// instruction-set path of this machine at 1 and 2 threads, with W and R constant (packed at plan
// time) and not, over hand-picked and random shapes and attribute combinations (directions, both
// layouts, B, sequence_lens with zero-length and full rows, initial states, peepholes, clip,
// activation lists with alpha/beta, input_forget, both GRU forms, fewer outputs); NaN and
// infinities in the inputs; in fast mode within a stated tolerance of the reference and the same
// bits at 1 and 2 threads; errors as the reference gives them; omitted outputs through sessions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "diff/counterexample.hpp"
#include "diff/op_harness.hpp"
#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::float_attr;
using ir_builder::floats_attr;
using ir_builder::int_attr;
using ir_builder::string_attr;
using ir_builder::strings_attr;

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// One recurrent node: sizes, attributes and which optional inputs are present.
struct Spec {
  std::string op = "LSTM";  // LSTM, GRU, RNN
  std::int64_t seq = 3, batch = 2, input = 4, hidden = 5;
  std::string direction = "forward";
  int layout = 0;
  bool bias = true;
  bool lens = false;  // sequence_lens with a zero-length row (batch > 1), a full row, others random
  bool initial_h = false;
  bool initial_c = false;  // LSTM
  bool peepholes = false;  // LSTM
  std::optional<float> clip;
  std::vector<std::string> activations;
  std::vector<float> alpha, beta;
  int input_forget = -1;         // LSTM; attribute set when >= 0
  int linear_before_reset = -1;  // GRU; attribute set when >= 0
  std::size_t outputs = 0;       // 0: all (3 for LSTM, else 2)
  double special_rate = 0.0;     // share of NaN / infinity / signed zero in X and the initial states
  float weight_scale = 0.5f;     // W, R, B, P uniform in [-scale, scale]
  std::int64_t opset = 14;

  std::int64_t gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  std::int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  std::string text() const {
    std::string t = op + " seq " + std::to_string(seq) + " batch " + std::to_string(batch) + " input " +
                    std::to_string(input) + " hidden " + std::to_string(hidden) + " " + direction + " layout " +
                    std::to_string(layout);
    t.append(bias ? " B" : "").append(lens ? " lens" : "").append(initial_h ? " h0" : "").append(initial_c ? " c0" : "");
    t.append(peepholes ? " P" : "").append(clip ? " clip" : "").append(activations.empty() ? "" : " acts");
    t.append(input_forget > 0 ? " input_forget" : "").append(linear_before_reset > 0 ? " lbr1" : "");
    return t;
  }
};

std::vector<float> uniform(std::size_t n, float scale, std::mt19937& rng, double special_rate) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::uniform_real_distribution<double> pick(0.0, 1.0);
  static const std::uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800000u, 0xFF800000u, 0x80000000u, 0x00000001u};
  std::vector<float> v(n);
  for (float& x : v) {
    x = u(rng);
    if (special_rate > 0.0 && pick(rng) < special_rate) x = from_bits(kSpecial[std::uniform_int_distribution<int>(0, 5)(rng)]);
  }
  return v;
}

Tensor f32(const Shape& shape, float scale, std::mt19937& rng, double special_rate = 0.0) {
  const auto v = uniform(static_cast<std::size_t>(shape.element_count()), scale, rng, special_rate);
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

OpCase make_case(const Spec& s, std::mt19937& rng) {
  OpCase c;
  c.op = s.op;
  c.opset = s.opset;
  const std::int64_t dirs = s.dirs(), gh = s.gates() * s.hidden;
  c.attributes.push_back(string_attr("direction", s.direction));
  c.attributes.push_back(int_attr("hidden_size", s.hidden));
  if (s.layout != 0) c.attributes.push_back(int_attr("layout", s.layout));
  if (s.clip) c.attributes.push_back(float_attr("clip", *s.clip));
  if (!s.activations.empty()) c.attributes.push_back(strings_attr("activations", s.activations));
  if (!s.alpha.empty()) c.attributes.push_back(floats_attr("activation_alpha", s.alpha));
  if (!s.beta.empty()) c.attributes.push_back(floats_attr("activation_beta", s.beta));
  if (s.input_forget >= 0) c.attributes.push_back(int_attr("input_forget", s.input_forget));
  if (s.linear_before_reset >= 0) c.attributes.push_back(int_attr("linear_before_reset", s.linear_before_reset));
  const Shape x = s.layout == 0 ? Shape{s.seq, s.batch, s.input} : Shape{s.batch, s.seq, s.input};
  const Shape state = s.layout == 0 ? Shape{dirs, s.batch, s.hidden} : Shape{s.batch, dirs, s.hidden};
  c.inputs.push_back(f32(x, 1.0f, rng, s.special_rate));
  c.inputs.push_back(f32(Shape{dirs, gh, s.input}, s.weight_scale, rng));
  c.inputs.push_back(f32(Shape{dirs, gh, s.hidden}, s.weight_scale, rng));
  c.inputs.push_back(s.bias ? f32(Shape{dirs, 2 * gh}, s.weight_scale, rng) : Tensor());
  if (s.lens) {
    std::vector<std::int32_t> lens(static_cast<std::size_t>(s.batch));
    for (std::size_t b = 0; b < lens.size(); ++b) {
      lens[b] = static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(0, s.seq)(rng));
    }
    if (s.batch > 1) lens[0] = 0;
    lens.back() = static_cast<std::int32_t>(s.seq);
    c.inputs.push_back(Tensor::from_values<std::int32_t>(DType::I32, Shape{s.batch}, std::span<const std::int32_t>(lens)));
  } else {
    c.inputs.push_back(Tensor());
  }
  c.inputs.push_back(s.initial_h ? f32(state, 1.0f, rng, s.special_rate) : Tensor());
  if (s.op == "LSTM") {
    c.inputs.push_back(s.initial_c ? f32(state, 1.0f, rng, s.special_rate) : Tensor());
    c.inputs.push_back(s.peepholes ? f32(Shape{dirs, 3 * s.hidden}, s.weight_scale, rng) : Tensor());
  }
  while (!c.inputs.empty() && !c.inputs.back().defined()) c.inputs.pop_back();  // trailing omitted inputs
  c.outputs = s.outputs != 0 ? s.outputs : (s.op == "LSTM" ? 3 : 2);
  return c;
}

// Exact mode: the reference's bits on every path, 1 and 2 threads, W and R constant and not.
std::string compare_exact(OpCase c, const std::string& name, CaseTally& tally) {
  RunTally runs;
  for (const bool constant : {true, false}) {
    c.constant.assign(c.inputs.size(), false);
    if (constant) c.constant[1] = c.constant[2] = true;
    const std::string d = check_everywhere(c, "diff-recurrent-" + c.op + (constant ? "-packed" : "-plain"), &runs);
    if (!d.empty()) return name + (constant ? " (W, R constant) " : " (W, R variable) ") + d;
  }
  tally.add(runs);
  return {};
}

std::vector<Spec> hand_picked() {
  std::vector<Spec> specs;
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    for (const std::string dir : {"forward", "reverse", "bidirectional"}) {
      for (const int layout : {0, 1}) {
        Spec s;
        s.op = op;
        s.direction = dir;
        s.layout = layout;
        s.seq = 4;
        s.batch = 3;
        s.lens = true;
        s.initial_h = true;
        s.initial_c = op == "LSTM";
        specs.push_back(s);
      }
    }
    Spec plain;  // no B, no lens, no states: defaults everywhere
    plain.op = op;
    plain.bias = false;
    specs.push_back(plain);
    Spec clipped;
    clipped.op = op;
    clipped.clip = 0.25f;
    clipped.weight_scale = 2.0f;  // pre-activations beyond the clip
    specs.push_back(clipped);
    Spec few;  // Y only
    few.op = op;
    few.outputs = 1;
    specs.push_back(few);
    Spec special;  // NaN, infinities, signed zeros in X and the initial states
    special.op = op;
    special.direction = "bidirectional";
    special.initial_h = true;
    special.initial_c = op == "LSTM";
    special.special_rate = 0.05;
    specs.push_back(special);
    Spec wide;  // several GEMM tiles and k-blocks, batch rows shared by two threads
    wide.op = op;
    wide.seq = 7;
    wide.batch = 9;
    wide.input = 300;
    wide.hidden = 70;
    wide.direction = "bidirectional";
    wide.lens = true;
    wide.weight_scale = 0.1f;
    specs.push_back(wide);
    Spec empty_input;  // input size 0: the projections are +0
    empty_input.op = op;
    empty_input.input = 0;
    specs.push_back(empty_input);
  }
  // Activation lists: one set for both directions, one per direction, alpha/beta cursors.
  Spec lstm_acts;
  lstm_acts.direction = "bidirectional";
  lstm_acts.activations = {"HardSigmoid", "LeakyRelu", "ScaledTanh", "sigmoid", "Affine", "Elu"};
  lstm_acts.alpha = {0.3f, 0.2f, 1.2f, 0.7f};
  lstm_acts.beta = {0.4f, 0.7f};
  specs.push_back(lstm_acts);
  Spec lstm_acts2;
  lstm_acts2.activations = {"Softsign", "Softplus", "ThresholdedRelu"};
  lstm_acts2.alpha = {0.1f};
  specs.push_back(lstm_acts2);
  Spec gru_acts;
  gru_acts.op = "GRU";
  gru_acts.direction = "bidirectional";
  gru_acts.activations = {"Relu", "TANH", "HardSigmoid", "Affine"};
  gru_acts.alpha = {0.5f};
  specs.push_back(gru_acts);
  Spec rnn_acts;
  rnn_acts.op = "RNN";
  rnn_acts.direction = "bidirectional";
  rnn_acts.activations = {"Elu", "LeakyRelu"};
  rnn_acts.alpha = {0.5f};
  specs.push_back(rnn_acts);
  for (const int lbr : {0, 1}) {
    Spec gru;
    gru.op = "GRU";
    gru.linear_before_reset = lbr;
    gru.direction = "bidirectional";
    gru.lens = true;
    gru.initial_h = true;
    gru.batch = 4;
    specs.push_back(gru);
    gru.bias = false;
    specs.push_back(gru);
  }
  for (const int forget : {0, 1}) {
    Spec lstm;
    lstm.input_forget = forget;
    lstm.peepholes = true;
    lstm.initial_c = true;
    lstm.lens = true;
    lstm.batch = 3;
    lstm.direction = "bidirectional";
    specs.push_back(lstm);
    lstm.clip = 0.5f;
    lstm.layout = 1;
    specs.push_back(lstm);
  }
  // Activations that keep a NaN as it comes (Relu, Affine) with infinities in X and the states:
  // inf - inf inside the cell makes the machine's default NaN, which exact mode stores canonical.
  Spec rnn_nan;
  rnn_nan.op = "RNN";
  rnn_nan.activations = {"Relu"};
  rnn_nan.initial_h = true;
  rnn_nan.special_rate = 0.3;
  rnn_nan.weight_scale = 2.0f;
  specs.push_back(rnn_nan);
  Spec lstm_nan = rnn_nan;
  lstm_nan.op = "LSTM";
  lstm_nan.activations = {"Sigmoid", "Affine", "Relu"};
  lstm_nan.initial_c = true;
  specs.push_back(lstm_nan);
  Spec gru_nan = rnn_nan;
  gru_nan.op = "GRU";
  gru_nan.activations = {"Sigmoid", "Relu"};
  gru_nan.clip = 3.0f;
  specs.push_back(gru_nan);
  Spec peep_only;  // P without initial states
  peep_only.peepholes = true;
  specs.push_back(peep_only);
  Spec opset7;
  opset7.opset = 7;
  opset7.op = "GRU";
  specs.push_back(opset7);
  return specs;
}

TEST(DiffRecurrent, OverridesAreRegistered) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    EXPECT_TRUE(has_override(op, 7)) << op;
    EXPECT_TRUE(has_override(op, 14)) << op;
    EXPECT_TRUE(has_override(op, 22)) << op;
  }
}

TEST(DiffRecurrent, ExactHandPickedCasesOnEveryPath) {
  CaseTally tally, bidirectional;
  std::mt19937 rng(151);
  const std::vector<Spec> specs = hand_picked();
  for (const Spec& s : specs) {
    const std::string d = compare_exact(make_case(s, rng), s.text(), s.dirs() == 2 ? bidirectional : tally);
    ASSERT_TRUE(d.empty()) << d;
  }
  EXPECT_EQ(tally.cases + bidirectional.cases, specs.size()) << tally.summary();
  // No case handed to the reference.
  EXPECT_EQ(tally.override_cases + bidirectional.override_cases, specs.size()) << tally.summary();
  EXPECT_GE(tally.shared_cases, 2u) << tally.summary();  // the wide cases split between threads
  // Every bidirectional case ran on both threads (its directions one per thread,
  // recurrent_override.cpp), so the bits above cover the split.
  EXPECT_GE(bidirectional.cases, 10u) << bidirectional.summary();
  EXPECT_EQ(bidirectional.shared_cases, bidirectional.cases) << bidirectional.summary();
}

// A bidirectional node runs its two directions as two chunks of the pool, one per thread, each
// direction's products on its own thread alone (recurrent_override.cpp): at two threads the node
// makes exactly one shared call, whatever the path's tile sizes, and its bits are the reference's
// and the one-thread run's. Fails when the directions run one after the other (no shared call on
// a layer this small, or an even number where its products split).
TEST(DiffRecurrent, BidirectionalDirectionsRunOnTwoThreads) {
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    Spec s;
    s.op = op;
    s.seq = 4;
    s.batch = 1;
    s.input = 3;
    s.hidden = 4;
    s.direction = "bidirectional";
    std::mt19937 rng(404);
    const OpCase c = make_case(s, rng);
    const std::vector<Tensor> want = run_reference(c, ExecutionMode::Exact);
    for (opt::Isa isa : opt::available_isas()) {
      OptimizedRun one_run, two_run;
      const auto one = run_optimized(c, ExecutionMode::Exact, isa, 1, &one_run);
      const auto two = run_optimized(c, ExecutionMode::Exact, isa, 2, &two_run);
      ASSERT_TRUE(first_difference(want, two).empty()) << s.text() << ": " << first_difference(want, two);
      ASSERT_TRUE(first_difference(one, two).empty()) << s.text() << ": 1 and 2 threads differ";
      ASSERT_TRUE(two_run.override_ran) << s.text();
      EXPECT_EQ(two_run.shared_calls, 1u) << s.text() << " on " << opt::isa_name(isa);
    }
  }
}

TEST(DiffRecurrent, ExactRandomCasesOnEveryPath) {
  CaseTally tally;
  std::mt19937 rng(152);
  const char* ops[] = {"LSTM", "GRU", "RNN"};
  const char* dirs[] = {"forward", "reverse", "bidirectional"};
  const char* names[] = {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
                         "HardSigmoid", "Elu", "Softsign", "Softplus"};
  std::uniform_int_distribution<int> coin(0, 1), three(0, 2), act(0, 10);
  std::uniform_int_distribution<std::int64_t> small(1, 6), size(1, 24);
  std::uniform_real_distribution<float> param(0.1f, 1.5f);
  for (int trial = 0; trial < 48; ++trial) {
    Spec s;
    s.op = ops[trial % 3];
    s.direction = dirs[three(rng)];
    s.layout = coin(rng);
    s.seq = small(rng);
    s.batch = small(rng);
    s.input = size(rng);
    s.hidden = size(rng);
    s.bias = coin(rng) != 0;
    s.lens = coin(rng) != 0;
    s.initial_h = coin(rng) != 0;
    s.initial_c = s.op == "LSTM" && coin(rng) != 0;
    s.peepholes = s.op == "LSTM" && coin(rng) != 0;
    if (coin(rng) != 0) s.clip = param(rng);
    if (s.op == "LSTM") s.input_forget = coin(rng);
    if (s.op == "GRU") s.linear_before_reset = coin(rng);
    if (trial % 4 == 3) {
      const std::size_t per = static_cast<std::size_t>(s.gates() == 4 ? 3 : s.gates() == 3 ? 2 : 1);
      const std::size_t count = s.dirs() == 2 && coin(rng) != 0 ? 2 * per : per;
      for (std::size_t k = 0; k < count; ++k) s.activations.push_back(names[act(rng)]);
      for (int k = three(rng); k > 0; --k) s.alpha.push_back(param(rng));
      for (int k = three(rng); k > 0; --k) s.beta.push_back(param(rng));
    }
    s.outputs = static_cast<std::size_t>(std::uniform_int_distribution<int>(1, s.op == "LSTM" ? 3 : 2)(rng));
    const std::string d = compare_exact(make_case(s, rng), s.text(), tally);
    ASSERT_TRUE(d.empty()) << d;
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

// Fast mode: the GEMM may fuse multiply-adds (kernels-gemm.md "Fast mode"), so each projection and
// recurrent dot differs from the reference's ordered one by at most about 2 k u sum|a b|; with
// X and states in [-1, 1], weights in [-0.1, 0.1] and k <= 64 that is under 2 * 64 * 6e-8 * 6.4 =
// 5e-5 per pre-activation, and the default activations (slope <= 1) and the convex state updates
// do not grow it by more than the step count (<= 8). So every output within 1e-3 of the
// reference's (absolute; the outputs are in [-1, 1]), and the same bits at 1 and 2 threads.
TEST(DiffRecurrent, FastWithinToleranceAndIndependentOfThreads) {
  std::mt19937 rng(153);
  std::vector<Spec> specs;
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    Spec s;
    s.op = op;
    s.seq = 8;
    s.batch = 5;
    s.input = 64;
    s.hidden = 48;
    s.direction = "bidirectional";
    s.lens = true;
    s.initial_h = true;
    s.initial_c = op == "LSTM";
    s.peepholes = op == "LSTM";
    s.weight_scale = 0.1f;
    specs.push_back(s);
    s.layout = 1;
    s.linear_before_reset = op == "GRU" ? 1 : -1;
    specs.push_back(s);
  }
  std::size_t shared = 0;
  for (const Spec& s : specs) {
    const OpCase c = make_case(s, rng);
    const auto want = run_reference(c, ExecutionMode::Fast);
    for (opt::Isa isa : opt::available_isas()) {
      OptimizedRun one_run, two_run;
      const auto one = run_optimized(c, ExecutionMode::Fast, isa, 1, &one_run);
      const auto two = run_optimized(c, ExecutionMode::Fast, isa, 2, &two_run);
      const std::string where = s.text() + " fast " + std::string(opt::isa_name(isa));
      ASSERT_TRUE(one_run.override_ran && two_run.override_ran) << where;
      if (two_run.shared_calls > 0) ++shared;
      ASSERT_TRUE(first_difference(one, two).empty()) << where << ": 1 and 2 threads differ";
      ASSERT_EQ(one.size(), want.size());
      for (std::size_t o = 0; o < want.size(); ++o) {
        const auto got = one[o].to_vector<float>();
        const auto ref = want[o].to_vector<float>();
        ASSERT_EQ(got.size(), ref.size()) << where;
        for (std::size_t i = 0; i < got.size(); ++i) {
          ASSERT_LE(std::fabs(got[i] - ref[i]), 1e-3f) << where << " output " << o << " element " << i;
        }
      }
    }
  }
  EXPECT_GT(shared, 0u);
}

// A sequence_lens value outside [0, seq] is the reference's InvalidInput, same message.
TEST(DiffRecurrent, BadSequenceLengthIsTheReferenceError) {
  std::mt19937 rng(154);
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    Spec s;
    s.op = op;
    s.lens = true;
    OpCase c = make_case(s, rng);
    const std::vector<std::int32_t> bad = {1, 4};  // seq is 3
    c.inputs[4] = Tensor::from_values<std::int32_t>(DType::I32, Shape{2}, std::span<const std::int32_t>(bad));
    std::string want, got;
    try {
      run_reference(c, ExecutionMode::Exact);
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
      want = e.what();
    }
    try {
      run_optimized(c, ExecutionMode::Exact, opt::available_isas().back(), 1);
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
      got = e.what();
    }
    EXPECT_FALSE(want.empty()) << op;
    EXPECT_EQ(got, want) << op;
  }
}

// Section 8 of spec/ops/recurrent.md: a layer whose projections reach 2^30 floats is refused with
// Unsupported when the plan is made, by the override as by the reference (shapes only, no data:
// seq 2^15, batch 2^5, LSTM G*H = 4 * 2^8 gives exactly 2^30; one row fewer is accepted).
TEST(DiffRecurrent, ScratchLimitIsRefusedAtPlanTime) {
  for (const std::int64_t seq : {std::int64_t{1} << 15, (std::int64_t{1} << 15) - 1}) {
    IrNode node;
    node.op_type = "LSTM";
    node.name = "lstm_limit";
    node.opset = 14;
    node.inputs = {"x", "w", "r"};
    node.outputs = {"y"};
    const NodeInfo info(node, 14, ExecutionMode::Exact);
    opt::ThreadPool pool(1, opt::ThreadPool::Sharing::ByEstimate);
    const opt::OptimizedOpDef* def = opt::find_optimized_op("", "LSTM", 14);
    ASSERT_NE(def, nullptr);
    const auto kernel = def->factory(info, opt::OptimizedConfig{opt::available_isas().back(), &pool});
    const std::vector<InferInput> inputs = {InferInput{true, DType::F32, Shape{seq, 32, 8}},
                                            InferInput{true, DType::F32, Shape{1, 1024, 8}},
                                            InferInput{true, DType::F32, Shape{1, 1024, 256}}};
    std::vector<InferOutput> outputs(1);
    outputs[0].wanted = true;
    InferContext context(info, inputs, outputs);
    if (seq == (std::int64_t{1} << 15)) {
      try {
        kernel->infer(context);
        ADD_FAILURE() << "a 2^30-float layer was accepted";
      } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), SessionErrorKind::Unsupported) << e.what();
      }
    } else {
      EXPECT_NO_THROW(kernel->infer(context));
    }
  }
}

// Omitted outputs in a model (Y omitted, Y_h kept; LSTM Y_h omitted, Y_c kept): the optimized
// engine's session gives the reference engine's bits at 1 and 2 threads.
TEST(DiffRecurrent, OmittedOutputsThroughSessions) {
  const test::RequireSplit require_split;
  std::mt19937 rng(155);
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    Spec s;
    s.op = op;
    s.seq = 6;
    s.batch = 8;
    s.input = 96;
    s.hidden = 64;
    s.direction = "bidirectional";
    s.initial_h = true;
    const OpCase c = make_case(s, rng);
    std::vector<ir_builder::NodeInput> inputs;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      inputs.push_back({c.inputs[i].defined() ? "in" + std::to_string(i) : std::string(), c.inputs[i]});
    }
    const Shape state{2, s.batch, s.hidden};
    std::vector<IrValueInfo> outputs = {IrValueInfo{}, ir_builder::fixed_tensor_value_info("y_h", 1, state)};
    if (op == "LSTM") {
      outputs[1] = IrValueInfo{};
      outputs.push_back(ir_builder::fixed_tensor_value_info("y_c", 1, state));
    }
    const IrModel model = ir_builder::one_node_model(op, 14, inputs, outputs, c.attributes);
    const auto feeds = ir_builder::feeds_of(inputs);
    const auto want = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
    for (const int threads : {1, 2}) {
      const auto got =
          test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      ASSERT_TRUE(first_difference(want, got).empty()) << op << " threads " << threads << ": " << first_difference(want, got);
    }
  }
}

}  // namespace
}  // namespace onemodel::diff
