// The `nchwc-layout` pass (optimized/passes/nchwc_layout.cpp, docs/design.md "Channel-blocked
// activations"): in fast mode on the AVX-512 path, the 1x1 and depthwise Convs of an inverted
// residual block (1x1 -> Relu -> depthwise -> Relu -> 1x1 -> Add(block input)) become NchwcConvOp
// nodes passing channel-blocked values between them, and:
//  - the outputs are the reference engine's within the fast-mode bound (a naive tolerance scaled
//    by the sums' magnitudes), and the same bits at 1 and 2 threads (the second shown to run);
//  - the nodes the pass makes are counted: all three for the plain block; none in exact mode or
//    on the AVX2 path; none when the expanded channels fill their blocks badly (24 channels);
//  - a value also read by another operator (an Abs of the depthwise output) stays [N, C, H, W], so
//    its reader sees the plain tensor, and the blocked nodes around it read and write that layout;
//  - a squeeze-and-excitation block keeps the layout (its pool and Mul become blocked nodes), and
//    a Mul by a factor the pass cannot prove [N, C, 1, 1] stays a Mul;
//  - a residual the pass cannot prove to have the output's shape (a [1, C, 1, 1] input that
//    broadcasts) leaves its Conv to the Conv override, which broadcasts it as the Add would;
//  - a strided depthwise layer (the output's plane is not the input's) between the 1x1 layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/pass_bits.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;
using ir_builder::ints_attr;

bool has_avx512() {
  const auto isas = opt::available_isas();
  return std::find(isas.begin(), isas.end(), opt::Isa::Avx512) != isas.end();
}

struct Block {
  std::size_t c = 32, expanded = 64, size = 14;
  std::size_t stride = 1;
  bool se_reader = false;      // an Abs also reads the depthwise output (into a graph output)
  bool broadcast_residual = false;  // Add a [1, C, 1, 1] input instead of the block input
  bool infinite_weight = false;     // the depthwise layer's first weight +inf
  // Squeeze-and-excitation after the depthwise layer: Mul(dr, Sigmoid(1x1(Relu(1x1(GAP(dr))))))
  // with 16 squeezed channels, or (se_from_input) Mul(dr, a [1, expanded, 1, 1] graph input).
  bool se = false;
  bool se_from_input = false;
};

// x [1, c, size, size] -> 1x1 (c -> expanded) -> Relu -> 3x3 depthwise (stride) -> Relu -> 1x1
// (expanded -> c) -> Add(x or r) -> "out".
IrModel block_model(const Block& k) {
  GraphBuilder b(17);
  const std::int64_t c = static_cast<std::int64_t>(k.c), e = static_cast<std::int64_t>(k.expanded);
  const std::int64_t s = static_cast<std::int64_t>(k.size);
  b.input("x", DType::F32, Shape{1, c, s, s});
  b.initializer("w1", test::pass_bits::small_weights(Shape{e, c, 1, 1}, 11));
  b.initializer("b1", test::pass_bits::small_weights(Shape{e}, 12));
  Tensor w2 = test::pass_bits::small_weights(Shape{e, 1, 3, 3}, 13);
  if (k.infinite_weight) w2.mutable_data<float>()[0] = std::numeric_limits<float>::infinity();
  b.initializer("w2", w2);
  b.initializer("b2", test::pass_bits::small_weights(Shape{e}, 14));
  b.initializer("w3", test::pass_bits::small_weights(Shape{c, e, 1, 1}, 15));
  b.initializer("b3", test::pass_bits::small_weights(Shape{c}, 16));
  b.node("Conv", {"x", "w1", "b1"}, {"e"});
  b.node("Relu", {"e"}, {"er"});
  b.node("Conv", {"er", "w2", "b2"}, {"d"},
         {int_attr("group", e), ints_attr("pads", {1, 1, 1, 1}),
          ints_attr("strides", {static_cast<std::int64_t>(k.stride), static_cast<std::int64_t>(k.stride)})});
  b.node("Relu", {"d"}, {"dr"});
  std::string projected = "dr";
  if (k.se) {
    b.initializer("ws1", test::pass_bits::small_weights(Shape{16, e, 1, 1}, 17));
    b.initializer("ws2", test::pass_bits::small_weights(Shape{e, 16, 1, 1}, 18));
    b.node("GlobalAveragePool", {"dr"}, {"g"});
    b.node("Conv", {"g", "ws1"}, {"g1"});
    b.node("Relu", {"g1"}, {"g1r"});
    b.node("Conv", {"g1r", "ws2"}, {"g2"});
    b.node("Sigmoid", {"g2"}, {"gate"});
    b.node("Mul", {"dr", "gate"}, {"excited"});
    projected = "excited";
  } else if (k.se_from_input) {
    b.input("gate", DType::F32, Shape{1, e, 1, 1});
    b.node("Mul", {"gate", "dr"}, {"excited"});
    projected = "excited";
  }
  b.node("Conv", {projected, "w3", "b3"}, {"p"});
  if (k.broadcast_residual) {
    b.input("r", DType::F32, Shape{1, c, 1, 1});
    b.node("Add", {"p", "r"}, {"out"});
  } else if (k.stride == 1) {
    b.node("Add", {"p", "x"}, {"out"});
  } else {
    b.node("Relu", {"p"}, {"out"});
  }
  b.output("out", DType::F32);
  if (k.se_reader) {
    b.node("Abs", {"dr"}, {"magnitude"});
    b.output("magnitude", DType::F32);
  }
  return b.build();
}

test::Feeds feeds(const Block& k) {
  const std::int64_t c = static_cast<std::int64_t>(k.c), s = static_cast<std::int64_t>(k.size);
  test::Feeds f = {{"x", test::pass_bits::input_values(Shape{1, c, s, s}, 3, 1 << 30, {})}};
  if (k.broadcast_residual) f.push_back({"r", test::pass_bits::input_values(Shape{1, c, 1, 1}, 4, 1 << 30, {})});
  if (k.se_from_input) {
    const std::int64_t e = static_cast<std::int64_t>(k.expanded);
    f.push_back({"gate", test::pass_bits::input_values(Shape{1, e, 1, 1}, 7, 1 << 30, {})});
  }
  return f;
}

std::size_t blocked_nodes(const IrModel& model, ExecutionMode mode, opt::Isa isa, const char* kind = "NchwcConvOp") {
  SessionOptions options;
  options.mode = mode;
  static opt::ThreadPool pool(1);
  return test::count_kernels(*opt::compile_graph(model, options, opt::OptimizedConfig{isa, &pool}), kind);
}

// "" when fast mode on the AVX-512 path at 1 and 2 threads gives the same bits, within the bound
// of the reference engine's outputs.
std::string fast_against_reference(const IrModel& model, const test::Feeds& f) {
  const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, f);
  ::setenv("ONEMODEL_ISA", "avx512", 1);
  const auto one = test::run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 1, f);
  const auto two = test::run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 2, f);
  ::unsetenv("ONEMODEL_ISA");
  if (std::string d = test::pass_bits::difference(one, two); !d.empty()) return "1 and 2 threads: " + d;
  if (one.size() != reference.size()) return "output counts differ";
  for (std::size_t i = 0; i < one.size(); ++i) {
    if (!(one[i].shape() == reference[i].shape())) return "output " + std::to_string(i) + " shape differs";
    const auto got = one[i].to_vector<float>();
    const auto want = reference[i].to_vector<float>();
    double scale = 0.0;
    for (float v : want) scale = std::isfinite(v) ? std::max(scale, std::fabs(static_cast<double>(v))) : scale;
    for (std::size_t k = 0; k < got.size(); ++k) {
      // NaN where the reference has NaN, the same infinity where it has one.
      if (!std::isfinite(want[k]) || !std::isfinite(got[k])) {
        if (std::isnan(want[k]) ? std::isnan(got[k]) : got[k] == want[k]) continue;
        return "output " + std::to_string(i) + " element " + std::to_string(k) + ": " + std::to_string(got[k]) +
               " against " + std::to_string(want[k]);
      }
      // Sums of a few hundred products of values near 1: 1e-5 of the output's largest magnitude
      // is hundreds of float32 roundings.
      if (!(std::fabs(static_cast<double>(got[k]) - want[k]) <= 1e-5 * scale + 1e-30)) {
        return "output " + std::to_string(i) + " element " + std::to_string(k) + ": " + std::to_string(got[k]) +
               " against " + std::to_string(want[k]);
      }
    }
  }
  return "";
}

TEST(NchwcLayout, InvertedResidualBlockRunsBlockedWithinTheBoundAtOneAndTwoThreads) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  const Block k;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 3u);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Exact, opt::Isa::Avx512), 0u);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx2), 0u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

TEST(NchwcLayout, ChannelsThatFillTheirBlocksBadlyStayPlain) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.c = 16;
  k.expanded = 24;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 0u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

TEST(NchwcLayout, ValueWithAnotherReaderStaysPlainAndTheBlockedNodesAroundItAdapt) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.se_reader = true;
  k.expanded = 48;
  const IrModel model = block_model(k);
  // The 1x1 expansion (plain in, blocked out) and the depthwise layer (blocked in, plain out);
  // the projection reads a plain value and writes the graph's output: left to the Conv override.
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 2u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

TEST(NchwcLayout, ResidualOfUnprovenShapeLeavesItsConvToTheOverride) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.broadcast_residual = true;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 2u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

TEST(NchwcLayout, InfiniteDepthwiseWeightMeetsThePaddingAsTheReferenceHasIt) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.infinite_weight = true;
  k.size = 28;  // most windows inside the map: finite weights would be read in place
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 3u);
  // +0 * inf is NaN at the top row and left column of channel 0, and every projected channel
  // reads it there.
  const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All,
                                           1, feeds(k));
  std::size_t nans = 0;
  for (float v : reference[0].to_vector<float>()) nans += std::isnan(v) ? 1u : 0u;
  EXPECT_GT(nans, 0u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

// A depthwise Conv whose groups (31) are not the channels its input has (32, the count of the 1x1
// layer before it): both fill two blocks, so only the pass's channel check keeps the value plain,
// and the Conv's own shape check refuses the model as the reference engine does.
TEST(NchwcLayout, MismatchedChannelsAreRefusedAsByTheReference) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{1, 16, 8, 8});
  b.initializer("w1", test::pass_bits::small_weights(Shape{32, 16, 1, 1}, 21));
  b.initializer("w2", test::pass_bits::small_weights(Shape{31, 1, 3, 3}, 22));
  b.node("Conv", {"x", "w1"}, {"e"});
  b.node("Conv", {"e", "w2"}, {"out"}, {int_attr("group", 31), ints_attr("pads", {1, 1, 1, 1})});
  b.output("out", DType::F32);
  const IrModel model = b.build();
  const test::Feeds f = {{"x", test::pass_bits::input_values(Shape{1, 16, 8, 8}, 5, 1 << 30, {})}};
  const auto kind_of = [&](EngineKind engine, ExecutionMode mode) {
    try {
      test::run_session(model, engine, mode, OptimizationLevel::All, 1, f);
    } catch (const SessionError& e) {
      return static_cast<int>(e.kind());
    }
    return -1;
  };
  const int reference = kind_of(EngineKind::Reference, ExecutionMode::Exact);
  ASSERT_NE(reference, -1);
  ::setenv("ONEMODEL_ISA", "avx512", 1);
  const int fast = kind_of(EngineKind::Optimized, ExecutionMode::Fast);
  ::unsetenv("ONEMODEL_ISA");
  EXPECT_EQ(fast, reference);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 0u);
}

// The chain leaves the blocked layout through a 1x1 layer that widens the channels (32 -> 128, a
// graph output): the narrower depthwise output is the tensor stored plain, and the widening layer
// runs as a Conv override.
TEST(NchwcLayout, WideningExitLeavesTheLayoutBeforeIt) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{1, 16, 12, 12});
  b.initializer("w1", test::pass_bits::small_weights(Shape{32, 16, 1, 1}, 31));
  b.initializer("w2", test::pass_bits::small_weights(Shape{32, 1, 3, 3}, 32));
  b.initializer("w3", test::pass_bits::small_weights(Shape{128, 32, 1, 1}, 33));
  b.node("Conv", {"x", "w1"}, {"e"});
  b.node("Conv", {"e", "w2"}, {"d"}, {int_attr("group", 32), ints_attr("pads", {1, 1, 1, 1})});
  b.node("Conv", {"d", "w3"}, {"out"});
  b.output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 2u);
  EXPECT_EQ(fast_against_reference(model, {{"x", test::pass_bits::input_values(Shape{1, 16, 12, 12}, 6, 1 << 30, {})}}), "");
}

// The squeeze-and-excitation block keeps the layout: its pool reads the blocked depthwise output
// and its Mul scales the blocked value into the projection's blocked input. Its two 1x1 layers
// (64 -> 16 -> 64 on a 1 x 1 map) stay Conv overrides: the second widens the channels into a
// plain value, so the widening-exit rule leaves the 16-channel value between them plain too.
TEST(NchwcLayout, SqueezeAndExcitationKeepsTheBlockedLayout) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.se = true;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 3u);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512, "NchwcPoolOp"), 1u);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512, "NchwcScaleOp"), 1u);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Exact, opt::Isa::Avx512, "NchwcScaleOp"), 0u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

// A Mul by a factor the pass cannot prove to be [N, C, 1, 1] (a graph input, whatever its shape
// at run time) leaves the value plain: the depthwise layer writes [N, C, H, W] for the Mul node.
TEST(NchwcLayout, MulByAnUnprovenFactorStaysAMul) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.se_from_input = true;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512, "NchwcScaleOp"), 0u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

// The factor is the pool of another value (a batch of 2 against the value's 1): the Mul
// broadcasts across the batch, which only the Mul node does, so it stays one.
TEST(NchwcLayout, FactorPooledFromAnotherValueStaysAMul) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{1, 16, 10, 10});
  b.input("other", DType::F32, Shape{2, 32, 5, 5});
  b.initializer("w1", test::pass_bits::small_weights(Shape{32, 16, 1, 1}, 41));
  b.initializer("w2", test::pass_bits::small_weights(Shape{32, 1, 3, 3}, 42));
  b.initializer("w3", test::pass_bits::small_weights(Shape{16, 32, 1, 1}, 43));
  b.node("Conv", {"x", "w1"}, {"e"});
  b.node("Conv", {"e", "w2"}, {"d"}, {int_attr("group", 32), ints_attr("pads", {1, 1, 1, 1})});
  b.node("GlobalAveragePool", {"other"}, {"g"});
  b.node("Sigmoid", {"g"}, {"gate"});
  b.node("Mul", {"d", "gate"}, {"excited"});
  b.node("Conv", {"excited", "w3"}, {"out"});
  b.output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512, "NchwcScaleOp"), 0u);
  EXPECT_EQ(fast_against_reference(model, {{"x", test::pass_bits::input_values(Shape{1, 16, 10, 10}, 8, 1 << 30, {})},
                                           {"other", test::pass_bits::input_values(Shape{2, 32, 5, 5}, 9, 1 << 30, {})}}),
            "");
}

TEST(NchwcLayout, StridedDepthwiseBetweenBlockedLayers) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the pass runs on that path only";
  const test::RequireSplit two_thread_runs_split;
  Block k;
  k.stride = 2;
  k.size = 15;
  const IrModel model = block_model(k);
  EXPECT_EQ(blocked_nodes(model, ExecutionMode::Fast, opt::Isa::Avx512), 3u);
  EXPECT_EQ(fast_against_reference(model, feeds(k)), "");
}

}  // namespace
}  // namespace onemodel
