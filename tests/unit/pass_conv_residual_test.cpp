// The `conv-residual` pass (optimized/passes/conv_residual_fuse.cpp, docs/design.md "Residual
// Add"): Conv -> Add(R) [-> activation], either operand order of the Add, becomes one Conv node
// whose kernels add R to each finished tile or plane. It claims to preserve bits, so:
//  - after each Conv kernel (im2col, 1x1, grouped, depthwise vector walk, channel-blocked depthwise
//    and fallback; a batch of
//    two, several groups, more than one product tile in each direction), with no activation, Relu
//    or a SiLU after the Add, the graph leaves one node (counted in the compiled graph in both
//    modes), and the fused graph gives, bit for bit, the reference engine's outputs and the
//    unfused optimized graph's (level None) in exact mode, and the unfused graph's in fast mode,
//    on every kernel path at 1 and 2 threads (fast fused also equal at 1 and 2 threads), with NaN
//    payloads, infinities, signed zeros and subnormals in X and R;
//  - a residual that broadcasts (a channel vector given at run time, or a batch the Conv's result
//    lacks) still fuses, since the pass sees no shapes, and gives the separate nodes' shape and
//    bits through the fallback;
//  - a dilated 3x3 Conv (rate 12 on a 14x14 map, DeepLabV3's ASPP shape) whose plain form takes
//    the tap-region path (conv2d_regions.hpp, narrow regions computed in a workspace) still gives
//    the reference's bits once an Add fuses into it (op_conv.cpp keeps such a node on the im2col
//    path, where the residual is read at each output's own position);
//  - after `conv-batchnorm-epilogue` (exact mode), Conv -> BatchNormalization -> Add(R) -> Relu is
//    one node applying the normalization, the residual and the Relu in that order, with the
//    reference's and the unfused graph's bits (im2col and depthwise kernels);
//  - near misses are left alone: the Conv's result also a graph output or read twice, an Add of a
//    constant (a bias), Add(y, y); the Add's result a graph output keeps its Relu apart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d_regions.hpp"
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

using test::pass_bits::bits_everywhere;
using test::pass_bits::compiled;
using test::pass_bits::difference;
using test::pass_bits::fused_nodes;

// pass_bits' inputs with the corners of HardSwish (-3, 3) and the exponentials' overflow (88.5) among the special values.
Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every = 23) {
  return test::pass_bits::input_values(shape, seed, special_every, {-3.0f, 3.0f, 88.5f, -88.5f});
}

Tensor weights(const Shape& shape, std::uint32_t seed) { return test::pass_bits::small_weights(shape, seed); }

struct ConvCase {
  const char* name;
  Shape x;
  Shape w;
  std::vector<IrAttribute> attributes;
  bool with_bias;
  Shape y;  // the Conv's result
};

std::vector<ConvCase> conv_cases() {
  return {
      {"3x3 padded, stride 2", Shape{1, 3, 23, 21}, Shape{8, 3, 3, 3},
       {ints_attr("pads", {1, 1, 1, 1}), ints_attr("strides", {2, 2})}, true, Shape{1, 8, 12, 11}},
      {"1x1, no bias, batch 2", Shape{2, 16, 19, 17}, Shape{24, 16, 1, 1}, {}, false, Shape{2, 24, 19, 17}},
      // 130 channels by 323 positions: tiles of 96 x 128 leave ragged ones in both directions.
      {"1x1, several tiles", Shape{1, 16, 19, 17}, Shape{130, 16, 1, 1}, {}, true, Shape{1, 130, 19, 17}},
      {"grouped, batch 2", Shape{2, 4, 9, 9}, Shape{6, 2, 3, 3}, {int_attr("group", 2)}, true, Shape{2, 6, 7, 7}},
      {"depthwise 5x5, batch 2", Shape{2, 8, 14, 37}, Shape{8, 1, 5, 5},
       {int_attr("group", 8), ints_attr("pads", {2, 2, 2, 2})}, true, Shape{2, 8, 14, 37}},
      {"depthwise fallback", Shape{1, 3, 12, 12}, Shape{3, 1, 9, 9}, {int_attr("group", 3)}, true, Shape{1, 3, 4, 4}},
      // 7x7 outputs: the channel-blocked kernel on the AVX-512 path (depthwise_takes_blocked), 20
      // channels: one whole block of 16 and a partial one.
      {"depthwise 3x3 channel-blocked", Shape{1, 20, 7, 7}, Shape{20, 1, 3, 3},
       {int_attr("group", 20), ints_attr("pads", {1, 1, 1, 1})}, true, Shape{1, 20, 7, 7}},
  };
}

GraphBuilder conv_base(const ConvCase& c, const Shape& r) {
  GraphBuilder b(17);
  b.input("x", DType::F32, c.x).input("r", DType::F32, r).initializer("w", weights(c.w, 21));
  std::vector<std::string> inputs{"x", "w"};
  if (c.with_bias) {
    b.initializer("b", weights(Shape{c.w[0]}, 5));
    inputs.push_back("b");
  }
  b.node("Conv", inputs, {"y"}, c.attributes);
  return b;
}

enum class After { Nothing, Relu, Silu };

// Add(y, r) or Add(r, y) into `s`, then the activation into "out" (or s is "out").
void add_tail(GraphBuilder& b, bool residual_first, After after) {
  const std::string s = after == After::Nothing ? "out" : "s";
  b.node("Add", residual_first ? std::vector<std::string>{"r", "y"} : std::vector<std::string>{"y", "r"}, {s});
  if (after == After::Relu) b.node("Relu", {"s"}, {"out"});
  if (after == After::Silu) b.node("Sigmoid", {"s"}, {"g"}).node("Mul", {"s", "g"}, {"out"});
  b.output("out", DType::F32);
}

std::size_t conv_kernels(const IrModel& model) {
  return test::count_kernels(*compiled(model, ExecutionMode::Exact), "ConvOverride");
}

TEST(ConvResidual, AfterEachConvKernelOneNodeWithTheBitsOfTheSeparateNodes) {
  const test::RequireSplit two_thread_runs_split;
  for (const ConvCase& c : conv_cases()) {
    for (After after : {After::Nothing, After::Relu, After::Silu}) {
      for (bool residual_first : {false, true}) {
        SCOPED_TRACE(std::string(c.name) + (after == After::Nothing ? "" : after == After::Relu ? " relu" : " silu") +
                     (residual_first ? " Add(r, y)" : " Add(y, r)"));
        GraphBuilder b = conv_base(c, c.y);
        add_tail(b, residual_first, after);
        const IrModel model = b.build();
        const std::size_t separate = after == After::Nothing ? 2u : after == After::Relu ? 3u : 4u;
        EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), separate);
        EXPECT_EQ(fused_nodes(model), 1u);
        EXPECT_EQ(conv_kernels(model), 1u);
        EXPECT_EQ(bits_everywhere(model, {{"x", input_values(c.x, 3)}, {"r", input_values(c.y, 4)}}), "");
      }
    }
  }
}

TEST(ConvResidual, BroadcastingResidualRunsTheSeparateNodes) {
  const ConvCase c = conv_cases()[1];  // 1x1, batch 2: y [2, 24, 19, 17]
  const Shape shapes[] = {Shape{1, 24, 1, 1}, Shape{24, 19, 17}, Shape{3, 2, 24, 19, 17}};
  const Shape outs[] = {c.y, c.y, Shape{3, 2, 24, 19, 17}};
  for (std::size_t k = 0; k < 3; ++k) {
    for (bool residual_first : {false, true}) {
      GraphBuilder b = conv_base(c, shapes[k]);
      add_tail(b, residual_first, After::Relu);
      const IrModel model = b.build();
      EXPECT_EQ(fused_nodes(model), 1u);
      const test::Feeds feeds = {{"x", input_values(c.x, 7)}, {"r", input_values(shapes[k], 8)}};
      const auto got = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].shape(), outs[k]);
      EXPECT_EQ(bits_everywhere(model, feeds), "");
    }
  }
}

TEST(ConvResidual, DilatedConvWhoseTapRegionsAreNarrowKeepsTheReferenceBits) {
  const test::RequireSplit two_thread_runs_split;
  // Rate 12 on 14x14, pads 12: kernel column 0 reads the image only for output columns 12 and 13,
  // column 2 only for 0 and 1, so the plain Conv's plan has regions two columns wide.
  const ConvCase c{"dilated 3x3 rate 12", Shape{1, 16, 14, 14}, Shape{8, 16, 3, 3},
                   {ints_attr("dilations", {12, 12}), ints_attr("pads", {12, 12, 12, 12})}, true,
                   Shape{1, 8, 14, 14}};
  // The same geometry as the Conv override resolves it: a plan with regions narrower than the
  // plane exists for these (finite) weights, so without the residual this Conv takes that path.
  opt::Conv2dShape s;
  s.in_channels = 16;
  s.out_channels = 8;
  s.in_h = s.in_w = 14;
  s.kernel_h = s.kernel_w = 3;
  s.dilation_h = s.dilation_w = 12;
  s.pad_top = s.pad_left = 12;
  s.out_h = s.out_w = 14;
  const std::vector<float> w = weights(c.w, 21).to_vector<float>();
  const opt::ConvRegionPlan plan = opt::conv2d_plan_regions(opt::Isa::Scalar, s, w.data());
  ASSERT_FALSE(plan.empty());
  bool narrow = false;
  for (const opt::ConvTapRegion& r : plan.regions) narrow = narrow || r.cols() < s.out_w;
  ASSERT_TRUE(narrow);
  for (After after : {After::Nothing, After::Relu}) {
    for (bool residual_first : {false, true}) {
      SCOPED_TRACE(std::string(after == After::Relu ? "relu" : "no activation") +
                   (residual_first ? " Add(r, y)" : " Add(y, r)"));
      GraphBuilder b = conv_base(c, c.y);
      add_tail(b, residual_first, after);
      const IrModel model = b.build();
      EXPECT_EQ(fused_nodes(model), 1u);
      EXPECT_EQ(bits_everywhere(model, {{"x", input_values(c.x, 12)}, {"r", input_values(c.y, 13)}}), "");
    }
  }
}

TEST(ConvResidual, AfterTheBatchNormalizationEpilogueTheNormalizationComesFirst) {
  const test::RequireSplit two_thread_runs_split;
  // 3x3 im2col, depthwise 5x5 (plane walk), depthwise 3x3 on 7x7 (channel-blocked on AVX-512)
  for (const std::size_t k : {std::size_t{0}, std::size_t{4}, std::size_t{6}}) {
    const ConvCase c = conv_cases()[k];
    const std::int64_t channels = c.w[0];
    for (bool residual_first : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (residual_first ? " Add(r, n)" : " Add(n, r)"));
      GraphBuilder b = conv_base(c, c.y);
      std::vector<float> var = weights(Shape{channels}, 31).to_vector<float>();
      for (float& v : var) v = v * v + 0.25f;  // positive variances
      b.initializer("scale", weights(Shape{channels}, 32)).initializer("beta", weights(Shape{channels}, 33));
      b.initializer("mean", weights(Shape{channels}, 34));
      b.initializer("var", Tensor::from_values<float>(DType::F32, Shape{channels}, var));
      b.node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"n"});
      b.node("Add", residual_first ? std::vector<std::string>{"r", "n"} : std::vector<std::string>{"n", "r"}, {"s"});
      b.node("Relu", {"s"}, {"out"}).output("out", DType::F32);
      const IrModel model = b.build();
      EXPECT_EQ(compiled(model, ExecutionMode::Exact)->nodes.size(), 1u);
      // Exact mode only: in fast mode `conv-batchnorm-fold` moves the scale into W (other bits).
      const test::Feeds feeds{{"x", input_values(c.x, 14)}, {"r", input_values(c.y, 15)}};
      const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
      for (const opt::Isa path : opt::available_isas()) {
        const std::string isa(opt::isa_name(path));
        ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
        for (int threads : {1, 2}) {
          SCOPED_TRACE(isa + " threads " + std::to_string(threads));
          const auto fused = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
          const auto unfused =
              test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::None, threads, feeds);
          EXPECT_EQ(difference(fused, reference), "");
          EXPECT_EQ(difference(fused, unfused), "");
        }
      }
      ::unsetenv("ONEMODEL_ISA");
    }
  }
}

TEST(ConvResidual, NearMissesAreLeftAlone) {
  const ConvCase c = conv_cases()[0];
  const test::Feeds feeds = {{"x", input_values(c.x, 9)}, {"r", input_values(c.y, 10)}};
  {  // the Conv's result is also a graph output
    GraphBuilder b = conv_base(c, c.y);
    add_tail(b, false, After::Relu);
    b.output("y", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // the Conv's result read twice
    GraphBuilder b = conv_base(c, c.y);
    b.node("Add", {"y", "r"}, {"s"}).node("Mul", {"s", "y"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // Add of a constant (a bias): conv-residual leaves it (elementwise-chain may take it)
    GraphBuilder b = conv_base(c, c.y);
    b.initializer("k", weights(c.y, 11)).node("Add", {"y", "k"}, {"s"}).node("Add", {"s", "r"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // Add(y, y)
    GraphBuilder b = conv_base(c, c.y);
    b.node("Add", {"y", "y"}, {"s"}).node("Add", {"s", "r"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // the sum is a graph output: the Add fuses, the Relu stays its own node
    GraphBuilder b = conv_base(c, c.y);
    add_tail(b, false, After::Relu);
    b.output("s", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(conv_kernels(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
}

}  // namespace
}  // namespace onemodel
