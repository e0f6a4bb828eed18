// The half-precision adapter (spec/half-precision.md section 8, spec-source fp16.md "Models stored
// in half precision"). The expected bits come from a second model that says the same thing in
// binary32 with explicit Casts: the same weights widened, each node's outputs sent through
// Cast(to = storage type) and Cast(to = float). The Cast kernels are the other path through the
// tensors.md section 10 conversions, so if the adapter skipped a rounding, widened a value
// wrongly or rounded to the wrong type, the two models would differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/half.hpp"
#include "onemodel/session.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;
using ir_builder::ints_attr;

std::uint16_t to_bits(float v, DType type) {
  return type == DType::BF16 ? float_to_bfloat16_bits(v) : float_to_half_bits(v);
}
float from_bits(std::uint16_t b, DType type) {
  return type == DType::BF16 ? bfloat16_bits_to_float(b) : half_bits_to_float(b);
}
std::int64_t onnx_code(DType type) { return static_cast<std::int64_t>(type); }

// Deterministic values in [-scale, scale): a fixed linear congruential sequence.
std::vector<float> pattern(std::size_t n, std::uint32_t seed, float scale) {
  std::vector<float> out(n);
  std::uint32_t s = seed;
  for (float& v : out) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
  return out;
}

// A weight as the half model stores it (16-bit) and as the binary32 model stores it (widened).
struct Weight {
  std::string name;
  Shape shape;
  std::vector<float> values;  // already representable in the 16-bit type
};

Tensor half_tensor(const Weight& w, DType type) {
  Tensor t = Tensor::empty(type, w.shape);
  auto out = t.mutable_data<std::uint16_t>();
  for (std::size_t i = 0; i < w.values.size(); ++i) out[i] = to_bits(w.values[i], type);
  return t;
}
Tensor float_tensor(const Weight& w) {
  Tensor t = Tensor::empty(DType::F32, w.shape);
  auto out = t.mutable_data<float>();
  for (std::size_t i = 0; i < w.values.size(); ++i) out[i] = w.values[i];
  return t;
}

struct Step {
  std::string op;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<IrAttribute> attributes = {};
  bool rounds = true;  // the node makes a 16-bit value (false: a shape or a view of one)
};

// The two models of one graph: `half` stores the weights and the activations in `type`, with a
// Cast at each end; `rounded` is binary32 throughout with the rounding spelled out as Casts.
struct ModelPair {
  IrModel half;
  IrModel rounded;
};

ModelPair make_pair_of_models(DType type, const Shape& input_shape, const std::vector<Weight>& weights,
                              const std::vector<Tensor>& int_initializers, const std::vector<std::string>& int_names,
                              const std::vector<Step>& steps, const std::string& last) {
  GraphBuilder half(20);
  GraphBuilder rounded(20);
  half.input("x", DType::F32, input_shape);
  rounded.input("x", DType::F32, input_shape);
  for (const Weight& w : weights) {
    half.initializer(w.name, half_tensor(w, type));
    rounded.initializer(w.name, float_tensor(w));
  }
  for (std::size_t i = 0; i < int_initializers.size(); ++i) {
    half.initializer(int_names[i], int_initializers[i]);
    rounded.initializer(int_names[i], int_initializers[i]);
  }
  half.node("Cast", {"x"}, {"h_x"}, {int_attr("to", onnx_code(type))});
  rounded.node("Cast", {"x"}, {"n_x"}, {int_attr("to", onnx_code(type))});
  rounded.node("Cast", {"n_x"}, {"h_x"}, {int_attr("to", 1)});
  for (const Step& step : steps) {
    half.node(step.op, step.inputs, step.outputs, step.attributes);
    if (!step.rounds) {
      rounded.node(step.op, step.inputs, step.outputs, step.attributes);
      continue;
    }
    std::vector<std::string> raw;
    for (const std::string& out : step.outputs) raw.push_back(out + "_f32");
    rounded.node(step.op, step.inputs, raw, step.attributes);
    for (std::size_t i = 0; i < raw.size(); ++i) {
      rounded.node("Cast", {raw[i]}, {raw[i] + "_n"}, {int_attr("to", onnx_code(type))});
      rounded.node("Cast", {raw[i] + "_n"}, {step.outputs[i]}, {int_attr("to", 1)});
    }
  }
  half.node("Cast", {last}, {"y"}, {int_attr("to", 1)});
  rounded.node("Identity", {last}, {"y"});
  half.output("y", DType::F32);
  rounded.output("y", DType::F32);
  return {half.build(), rounded.build()};
}

Weight weight(const std::string& name, const Shape& shape, std::uint32_t seed, float scale, DType type) {
  Weight w{name, shape, pattern(static_cast<std::size_t>(shape.element_count()), seed, scale)};
  for (float& v : w.values) v = from_bits(to_bits(v, type), type);
  return w;
}

Tensor ints(std::vector<std::int64_t> values) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(values.size())},
                                           std::span<const std::int64_t>(values));
}

// A small network with the operators issue 12 names: Conv, LayerNormalization, an attention block
// (MatMul, Transpose, scaling, Softmax), Erf, a residual Add and Sigmoid.
ModelPair attention_network(DType type) {
  const std::vector<Weight> weights = {
      weight("conv_w", Shape{8, 4, 3, 3}, 1, 0.3f, type), weight("conv_b", Shape{8}, 2, 0.1f, type),
      weight("ln_scale", Shape{8}, 3, 1.0f, type),        weight("ln_bias", Shape{8}, 4, 0.2f, type),
      weight("wq", Shape{8, 8}, 5, 0.5f, type),           weight("wk", Shape{8, 8}, 6, 0.5f, type),
      weight("temperature", Shape{}, 7, 0.35f, type)};
  const std::vector<Step> steps = {
      {"Conv", {"h_x", "conv_w", "conv_b"}, {"c"}, {ints_attr("pads", {1, 1, 1, 1})}, true},
      {"Reshape", {"c", "flat_shape"}, {"r"}, {}, false},
      {"Transpose", {"r"}, {"t"}, {ints_attr("perm", {0, 2, 1})}, false},
      {"LayerNormalization", {"t", "ln_scale", "ln_bias"}, {"ln"}, {int_attr("axis", -1)}, true},
      {"MatMul", {"ln", "wq"}, {"q"}, {}, true},
      {"MatMul", {"ln", "wk"}, {"k"}, {}, true},
      {"Transpose", {"k"}, {"kt"}, {ints_attr("perm", {0, 2, 1})}, false},
      {"MatMul", {"q", "kt"}, {"s"}, {}, true},
      {"Mul", {"s", "temperature"}, {"ss"}, {}, true},
      {"Softmax", {"ss"}, {"p"}, {int_attr("axis", -1)}, true},
      {"MatMul", {"p", "ln"}, {"a"}, {}, true},
      {"Erf", {"a"}, {"e"}, {}, true},
      {"Add", {"e", "ln"}, {"res"}, {}, true},
      {"Sigmoid", {"res"}, {"out"}, {}, true},
  };
  return make_pair_of_models(type, Shape{1, 4, 6, 6}, weights, {ints({1, 8, 36})}, {"flat_shape"}, steps, "out");
}

Tensor input_for(const Shape& shape) {
  Tensor x = Tensor::empty(DType::F32, shape);
  const std::vector<float> v = pattern(static_cast<std::size_t>(shape.element_count()), 99, 2.0f);
  std::memcpy(x.mutable_data<float>().data(), v.data(), v.size() * sizeof(float));
  return x;
}

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float v : t.contiguous().data<float>()) {
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    out.push_back(b);
  }
  return out;
}

Tensor run_one(const IrModel& model, EngineKind engine, ExecutionMode mode, int threads, const Tensor& x) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.intra_op_threads = threads;
  auto outputs = Session::create(model, options).run({{"x", x}});
  EXPECT_EQ(outputs.size(), 1u);
  return outputs.at(0);
}

class HalfAdapter : public ::testing::TestWithParam<DType> {};

// Exact mode: the half model equals its spelled-out binary32 twin bit for bit, in both engines,
// at 1 and 4 threads.
TEST_P(HalfAdapter, ExactModeEqualsTheModelWithTheRoundingsSpelledOut) {
  const DType type = GetParam();
  const ModelPair pair = attention_network(type);
  const Tensor x = input_for(Shape{1, 4, 6, 6});
  const auto expected = bits_of(run_one(pair.rounded, EngineKind::Reference, ExecutionMode::Exact, 1, x));
  ASSERT_EQ(expected.size(), 36u * 8u);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (int threads : {1, 4}) {
      SCOPED_TRACE(std::string(engine == EngineKind::Reference ? "reference" : "optimized") + " threads " +
                   std::to_string(threads));
      if (engine == EngineKind::Optimized && threads > 1) {
        // The four-thread run must really share a call (tests/kernels/two_threads.hpp).
        const opt::two_threads::SessionsAlwaysShare sharing;
        EXPECT_EQ(bits_of(run_one(pair.half, engine, ExecutionMode::Exact, threads, x)), expected);
        sharing.require("the half attention network at four threads");
        continue;
      }
      EXPECT_EQ(bits_of(run_one(pair.half, engine, ExecutionMode::Exact, threads, x)), expected);
    }
  }
}

// Fast mode: each engine equals the twin it runs (the optimized engine's fast kernels may differ
// from the reference's, never from themselves on the same roundings).
TEST_P(HalfAdapter, FastModeEqualsTheTwinInTheSameEngine) {
  const DType type = GetParam();
  const ModelPair pair = attention_network(type);
  const Tensor x = input_for(Shape{1, 4, 6, 6});
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SCOPED_TRACE(engine == EngineKind::Reference ? "reference" : "optimized");
    SessionOptions options;
    options.engine = engine;
    options.optimization_level = OptimizationLevel::None;  // the twin is fused otherwise
    options.intra_op_threads = 1;
    const Tensor want = Session::create(pair.rounded, options).run({{"x", x}}).at(0);
    const Tensor got = Session::create(pair.half, options).run({{"x", x}}).at(0);
    EXPECT_EQ(bits_of(got), bits_of(want));
    const Tensor one = run_one(pair.half, engine, ExecutionMode::Fast, 1, x);
    if (engine == EngineKind::Optimized) {
      const opt::two_threads::SessionsAlwaysShare sharing;
      EXPECT_EQ(bits_of(run_one(pair.half, engine, ExecutionMode::Fast, 2, x)), bits_of(one));
      sharing.require("the half attention network at two threads");
    } else {
      EXPECT_EQ(bits_of(run_one(pair.half, engine, ExecutionMode::Fast, 2, x)), bits_of(one));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, HalfAdapter, ::testing::Values(DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Section 8.3: nodes that only move bytes are not wrapped, so a signalling NaN keeps its bits
// through Transpose and Reshape; a wrapped node (Relu) makes it quiet, and in exact mode canonical.
TEST(HalfAdapterRules, ByteMoversKeepTheBitsAndArithmeticQuietsNaN) {
  GraphBuilder b(20);
  Tensor x = Tensor::empty(DType::F16, Shape{2, 2});
  const std::vector<std::uint16_t> bits = {0x7C01, 0x3C00, 0xFC02, 0xC000};  // sNaN, 1, -sNaN, -2
  std::memcpy(x.mutable_data<std::uint16_t>().data(), bits.data(), 8);
  b.input("x", DType::F16, Shape{2, 2})
      .initializer("shape", ints({4}))
      .node("Transpose", {"x"}, {"t"}, {ints_attr("perm", {1, 0})})
      .node("Reshape", {"t", "shape"}, {"moved"})
      .node("Relu", {"x"}, {"relu"})
      .output("moved", DType::F16)
      .output("relu", DType::F16);
  const IrModel model = b.build();
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SCOPED_TRACE(engine == EngineKind::Reference ? "reference" : "optimized");
    SessionOptions options;
    options.engine = engine;
    options.mode = ExecutionMode::Exact;
    options.intra_op_threads = 1;
    const auto outputs = Session::create(model, options).run({{"x", x}});
    ASSERT_EQ(outputs.size(), 2u);
    const auto moved = outputs[0].contiguous().data<std::uint16_t>();
    EXPECT_EQ(std::vector<std::uint16_t>(moved.begin(), moved.end()),
              (std::vector<std::uint16_t>{0x7C01, 0xFC02, 0x3C00, 0xC000}));
    const auto relu = outputs[1].contiguous().data<std::uint16_t>();
    // exact-mode.md rule 4: the canonical NaN, rounded to binary16 (0x7E00); Relu(1) = 1, Relu(-2) = 0.
    EXPECT_EQ(std::vector<std::uint16_t>(relu.begin(), relu.end()),
              (std::vector<std::uint16_t>{0x7E00, 0x3C00, 0x7E00, 0x0000}));
  }
}

// spec/half-precision.md section 8.7: the optimized engine converts in fixed chunks of 32768 values
// over its pool. Softsign has no optimized kernel (its reference kernel runs on the calling thread),
// so in a two-thread run of a float16 Softsign over more than three chunks the only calls two
// threads can share are the adapter's widening and narrowing: the test fails unless one was shared,
// and the bits must equal the one-thread run and the reference engine's.
TEST(HalfAdapterRules, ConversionsRunOnTwoThreadsWithTheSameBits) {
  const Shape shape{3 * 32768 + 77};
  GraphBuilder b(20);
  b.input("x", DType::F16, shape).node("Softsign", {"x"}, {"y"}).output("y", DType::F16);
  const IrModel model = b.build();
  Tensor x = Tensor::empty(DType::F16, shape);
  const std::vector<float> values = pattern(static_cast<std::size_t>(shape.element_count()), 99, 40.0f);
  auto bits = x.mutable_data<std::uint16_t>();
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = float_to_half_bits(values[i]);
  auto run = [&](EngineKind engine, ExecutionMode mode, int threads) {
    SessionOptions options;
    options.engine = engine;
    options.mode = mode;
    options.intra_op_threads = threads;
    const Tensor y = Session::create(model, options).run({{"x", x}}).at(0).contiguous();
    const auto out = y.data<std::uint16_t>();
    return std::vector<std::uint16_t>(out.begin(), out.end());
  };
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    SCOPED_TRACE(mode == ExecutionMode::Exact ? "exact" : "fast");
    const auto one = run(EngineKind::Optimized, mode, 1);
    const opt::two_threads::SessionsAlwaysShare sharing;
    const auto two = run(EngineKind::Optimized, mode, 2);
    sharing.require("float16 Softsign's conversions");
    EXPECT_EQ(two, one);
    if (mode == ExecutionMode::Exact) {
      EXPECT_EQ(one, run(EngineKind::Reference, mode, 1));
    }
  }
}

// The storage type is the first 16-bit input's: a bfloat16 LayerNormalization with binary16...
// is not valid ONNX; instead check that a node with binary16 data makes binary16 outputs and its
// integer outputs keep their type (TopK is never wrapped, ArgMax is).
TEST(HalfAdapterRules, OutputTypesFollowTheStorageTypeAndIntegersStay) {
  GraphBuilder b(20);
  b.input("x", DType::F16, Shape{2, 3})
      .node("ArgMax", {"x"}, {"index"}, {int_attr("axis", 1)})
      .node("Softmax", {"x"}, {"p"}, {int_attr("axis", 1)})
      .output("index", DType::I64)
      .output("p", DType::F16);
  const IrModel model = b.build();
  Tensor x = Tensor::empty(DType::F16, Shape{2, 3});
  const std::vector<float> v = {0.5f, 2.0f, -1.0f, 3.0f, 3.0f, 1.0f};
  for (std::size_t i = 0; i < v.size(); ++i) x.mutable_data<std::uint16_t>()[i] = float_to_half_bits(v[i]);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SessionOptions options;
    options.engine = engine;
    const auto outputs = Session::create(model, options).run({{"x", x}});
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(outputs[0].dtype(), DType::I64);
    EXPECT_EQ(outputs[0].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0}));  // first of ties
    ASSERT_EQ(outputs[1].dtype(), DType::F16);
    // Softmax row 0 by its definition, rounded once to binary16.
    const double e0 = std::exp(0.5), e1 = std::exp(2.0), e2 = std::exp(-1.0);
    const auto p = outputs[1].to_vector<std::uint16_t>();
    EXPECT_EQ(p[1], float_to_half_bits(static_cast<float>(e1 / (e0 + e1 + e2))));
  }
}

}  // namespace
}  // namespace onemodel
