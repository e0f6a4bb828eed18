// The optimized engine's fusions in a model with half values (spec/half-precision.md section 8.6):
// `linear-pack-fuse`, `elementwise-chain` and `conv-activation` fuse float16 and bfloat16 nodes too,
// with the adapter's roundings kept in the fused kernels (the tile epilogue of a product rounds its
// result, the bias sum and the activation to the storage type; a chain rounds after every step; a
// Conv rounds its result before its activation). So:
//  - a float16 (and a bfloat16) network of products with bias and activations, an exported GELU
//    chain, a Gemm with C and a bare product fuses into three LinearOps and one ElementwiseProgramOp;
//    likewise a network of 3x3, depthwise and 1x1 Convs with Relu, HardSigmoid and LeakyRelu;
//  - its outputs equal, bit for bit, the reference engine's in exact mode (the adapter node by
//    node, with binary16 Add/Sub/Mul/Div in binary16), and the unfused optimized graph's (level
//    None: the adapter node by node) in both modes, on every kernel path at 1 and 2 threads, with
//    NaN, infinities, values beyond the float16 range, subnormals and signed zeros in the input.
// The test fails if a fused kernel skips a rounding, rounds to the wrong type or widens wrongly
// (shown by removing the epilogue's round_through_16 calls: the exact rows then differ).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/half.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;

std::uint16_t to_bits(float v, DType type) {
  return type == DType::BF16 ? float_to_bfloat16_bits(v) : float_to_half_bits(v);
}

// Deterministic values in [-scale, scale), one in `special_every` a special value.
std::vector<float> pattern(std::size_t n, std::uint32_t seed, float scale, int special_every) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.0e5f, -7.0e4f, 3.0e-7f,
                            -6.0e-8f, 2.0e38f};
  std::vector<float> out(n);
  std::uint32_t s = seed;
  for (float& v : out) {
    s = s * 1664525u + 1013904223u;
    if (special_every > 0 && (s >> 9) % static_cast<std::uint32_t>(special_every) == 0) {
      v = specials[(s >> 3) % (sizeof specials / sizeof specials[0])];
    } else {
      v = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
  }
  return out;
}

Tensor half_tensor(const Shape& shape, const std::vector<float>& values, DType type) {
  Tensor t = Tensor::empty(type, shape);
  auto out = t.mutable_data<std::uint16_t>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = to_bits(values[i], type);
  return t;
}

Tensor half_weight(const Shape& shape, std::uint32_t seed, float scale, DType type) {
  return half_tensor(shape, pattern(static_cast<std::size_t>(shape.element_count()), seed, scale, 0), type);
}

Tensor half_scalar(float v, DType type) { return half_tensor(Shape{}, {v}, type); }

// x (float32) -> Cast -> MatMul W1 + b1 -> Relu -> GELU as exported (Div, Erf, Add, Mul, Mul) ->
// Gemm (transB, C) -> Sigmoid -> MatMul W3 -> y16 (a 16-bit graph output) and Cast -> y.
IrModel half_network(DType type, const Shape& x_shape) {
  const std::int64_t k = x_shape[1];
  GraphBuilder b(13);
  b.input("x", DType::F32, x_shape)
      .initializer("w1", half_weight(Shape{k, 96}, 11, 0.3f, type))
      .initializer("b1", half_weight(Shape{96}, 12, 0.5f, type))
      .initializer("sqrt2", half_scalar(1.4142135f, type))
      .initializer("one", half_scalar(1.0f, type))
      .initializer("halfc", half_scalar(0.5f, type))
      .initializer("w2", half_weight(Shape{40, 96}, 13, 0.2f, type))
      .initializer("c2", half_weight(Shape{40}, 14, 0.5f, type))
      .initializer("w3", half_weight(Shape{40, 24}, 15, 0.4f, type))
      .node("Cast", {"x"}, {"h"}, {int_attr("to", static_cast<std::int64_t>(type))})
      .node("MatMul", {"h", "w1"}, {"m1"})
      .node("Add", {"m1", "b1"}, {"a1"})
      .node("Relu", {"a1"}, {"r1"})
      .node("Div", {"r1", "sqrt2"}, {"d"})
      .node("Erf", {"d"}, {"e"})
      .node("Add", {"e", "one"}, {"e1"})
      .node("Mul", {"r1", "e1"}, {"g"})
      .node("Mul", {"g", "halfc"}, {"g2"})
      .node("Gemm", {"g2", "w2", "c2"}, {"gm"}, {int_attr("transB", 1)})
      .node("Sigmoid", {"gm"}, {"s"})
      .node("MatMul", {"s", "w3"}, {"y16"})
      .node("Cast", {"y16"}, {"y"}, {int_attr("to", 1)});
  b.output("y", DType::F32);
  b.output("y16", type);
  return b.build();
}

using test::count_kernels;

// The first difference in type, shape or bytes, or "".
std::string difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return "output counts differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype() != b[i].dtype() || !(a[i].shape() == b[i].shape())) return "output " + std::to_string(i) + " type or shape";
    std::vector<std::byte> x(static_cast<std::size_t>(a[i].element_count()) * dtype_size(a[i].dtype()));
    std::vector<std::byte> y(x.size());
    a[i].copy_to(x);
    b[i].copy_to(y);
    const std::size_t width = dtype_size(a[i].dtype());
    for (std::size_t e = 0; e * width < x.size(); ++e) {
      if (std::memcmp(x.data() + e * width, y.data() + e * width, width) != 0) {
        return "output " + std::to_string(i) + " element " + std::to_string(e);
      }
    }
  }
  return "";
}

std::vector<Tensor> run(const IrModel& model, EngineKind engine, ExecutionMode mode, OptimizationLevel level,
                        int threads, const test::Feeds& feeds) {
  return test::run_session(model, engine, mode, level, threads, feeds);
}

std::string bits_everywhere(const IrModel& model, const test::Feeds& feeds) {
  const auto reference = run(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  std::string found;
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    const auto unfused_fast = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, 1, feeds);
    const auto unfused_exact = run(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::None, 1, feeds);
    if (std::string d = difference(unfused_exact, reference); !d.empty()) found = "unfused exact vs reference, " + isa + ": " + d;
    for (int threads : {1, 2}) {
      if (!found.empty()) break;
      const std::string where = isa + " threads " + std::to_string(threads);
      const auto exact = run(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      const auto fast = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
      if (std::string d = difference(exact, reference); !d.empty()) found = "exact vs reference, " + where + ": " + d;
      if (std::string d = difference(fast, unfused_fast); !d.empty()) found = "fast fused vs unfused, " + where + ": " + d;
    }
    if (!found.empty()) break;
  }
  ::unsetenv("ONEMODEL_ISA");
  return found;
}

// The optimized engine's graph after its passes, on the scalar path (the pool outlives it).
std::unique_ptr<opt::CompiledGraph> compiled(const IrModel& model, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  static opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
}

class HalfFusion : public ::testing::TestWithParam<DType> {};

TEST_P(HalfFusion, FusesWithTheAdaptersRoundings) {
  const DType type = GetParam();
  const Shape x_shape{45, 70};
  const IrModel model = half_network(type, x_shape);
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const auto graph = compiled(model, mode);
    EXPECT_EQ(count_kernels(*graph, "LinearOp"), 3u) << "mode " << static_cast<int>(mode);
    EXPECT_EQ(count_kernels(*graph, "ElementwiseProgramOp"), 1u) << "mode " << static_cast<int>(mode);
  }
  const test::RequireSplit two_thread_runs_split;
  const std::size_t n = static_cast<std::size_t>(x_shape.element_count());
  for (std::uint32_t seed : {1u, 2u}) {
    const Tensor x = Tensor::from_values<float>(DType::F32, x_shape, pattern(n, seed, 4.0f, seed == 1 ? 0 : 29));
    EXPECT_EQ(bits_everywhere(model, {{"x", x}}), "") << "seed " << seed;
  }
}

// x (float32) -> Cast -> Conv 3x3 (bias) -> Relu -> depthwise Conv 3x3 (group 8, bias) ->
// HardSigmoid -> Conv 1x1 -> LeakyRelu -> Cast -> y: `conv-activation` fuses each Conv with its
// activation, rounding through the storage type between them (im2col tiles, depthwise planes).
IrModel half_conv_network(DType type, const Shape& x_shape) {
  GraphBuilder b(13);
  b.input("x", DType::F32, x_shape)
      .initializer("w1", half_weight(Shape{8, 3, 3, 3}, 21, 0.4f, type))
      .initializer("b1", half_weight(Shape{8}, 22, 0.5f, type))
      .initializer("w2", half_weight(Shape{8, 1, 3, 3}, 23, 0.6f, type))
      .initializer("b2", half_weight(Shape{8}, 24, 0.5f, type))
      .initializer("w3", half_weight(Shape{5, 8, 1, 1}, 25, 0.5f, type))
      .node("Cast", {"x"}, {"h"}, {int_attr("to", static_cast<std::int64_t>(type))})
      .node("Conv", {"h", "w1", "b1"}, {"c1"}, {ir_builder::ints_attr("pads", {1, 1, 1, 1})})
      .node("Relu", {"c1"}, {"r1"})
      .node("Conv", {"r1", "w2", "b2"}, {"c2"}, {int_attr("group", 8), ir_builder::ints_attr("pads", {1, 1, 1, 1})})
      .node("HardSigmoid", {"c2"}, {"s2"})
      .node("Conv", {"s2", "w3"}, {"c3"})
      .node("LeakyRelu", {"c3"}, {"l3"})
      .node("Cast", {"l3"}, {"y"}, {int_attr("to", 1)});
  b.output("y", DType::F32);
  return b.build();
}

TEST_P(HalfFusion, ConvolutionsFuseWithTheirActivationsAndRoundBetween) {
  const DType type = GetParam();
  const Shape x_shape{2, 3, 17, 23};
  const IrModel model = half_conv_network(type, x_shape);
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const auto graph = compiled(model, mode);
    // Cast, three fused Convs, Cast: the activations are gone.
    EXPECT_EQ(graph->nodes.size(), 5u) << "mode " << static_cast<int>(mode);
  }
  const test::RequireSplit two_thread_runs_split;
  const std::size_t n = static_cast<std::size_t>(x_shape.element_count());
  for (std::uint32_t seed : {3u, 4u}) {
    const Tensor x = Tensor::from_values<float>(DType::F32, x_shape, pattern(n, seed, 3.0f, seed == 3 ? 0 : 31));
    EXPECT_EQ(bits_everywhere(model, {{"x", x}}), "") << "seed " << seed;
  }
}

// A float32 operand in a model with half values is not a 16-bit chain: a product whose weight has
// another 16-bit type than its A, and a chain whose constant has another type than X, stay apart.
TEST(HalfFusionLimits, MixedTypesAreNotFused) {
  GraphBuilder b(13);
  b.input("x", DType::F16, Shape{4, 8})
      .initializer("w", half_weight(Shape{8, 8}, 3, 0.5f, DType::BF16))
      .initializer("c", half_scalar(2.0f, DType::BF16))
      .node("Cast", {"x"}, {"xb"}, {int_attr("to", static_cast<std::int64_t>(DType::BF16))})
      .node("MatMul", {"x", "w"}, {"m"})  // float16 A, bfloat16 B: not a valid pair
      .node("Add", {"xb", "c"}, {"p"})
      .node("Mul", {"p", "c"}, {"q"});
  b.output("m", DType::F16);
  b.output("q", DType::BF16);
  const IrModel model = b.build();
  SessionOptions options;
  opt::ThreadPool pool(1);
  const auto graph = opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
  EXPECT_EQ(count_kernels(*graph, "LinearOp"), 0u);
  // The bfloat16 chain (X from a Cast to bfloat16, bfloat16 constants) does fuse.
  EXPECT_EQ(count_kernels(*graph, "ElementwiseProgramOp"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Types, HalfFusion, ::testing::Values(DType::F16, DType::BF16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return info.param == DType::F16 ? std::string("Float16") : std::string("BFloat16");
                         });

}  // namespace
}  // namespace onemodel
