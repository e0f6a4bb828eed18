// The random operators (spec/ops/random.md): the generator against the published known answers,
// the law of each operator against its theory (fixed seeds, so each check is deterministic; the
// bounds are 5 standard deviations of the statistic, computed from the law, not from our output),
// the reproducibility rules of section 2 in both engines and at 1 and 2 threads, and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "reference/ops/random_draws.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kF32 = 1;
constexpr std::int32_t kBool = 9;
constexpr std::int32_t kI64 = 7;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

struct Run {
  EngineKind engine = EngineKind::Reference;
  ExecutionMode mode = ExecutionMode::Exact;
  int threads = 1;
  std::uint64_t random_seed = 0;
};

std::vector<Tensor> run_node(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                             const std::vector<IrValueInfo>& outputs, const std::vector<IrAttribute>& attributes,
                             const Run& r = {}) {
  SessionOptions o;
  o.engine = r.engine;
  o.mode = r.mode;
  o.intra_op_threads = r.threads;
  Session s = Session::create(one_node_model(op, opset, inputs, outputs, attributes), o);
  RunOptions ro;
  ro.random_seed = r.random_seed;
  return s.run(feeds_of(inputs), ro);
}

std::vector<float> floats(const Tensor& t) { return t.to_vector<float>(); }

// The bytes of a tensor, to compare two runs bit for bit.
std::vector<std::byte> bits(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<std::byte> out(static_cast<std::size_t>(c.element_count()) * dtype_size(c.dtype()));
  c.copy_to(out);
  return out;
}

// |observed - expected| within 5 standard deviations of a mean of n draws.
void expect_within(double observed, double expected, double sd_one, std::size_t n, const std::string& what) {
  const double bound = 5.0 * sd_one / std::sqrt(static_cast<double>(n));
  EXPECT_LE(std::fabs(observed - expected), bound) << what << ": " << observed << " vs " << expected;
}

// ---- Section 1: the generator ----

TEST(RandomDraws, Philox4x32MatchesThePublishedKnownAnswers) {
  // Random123's tests/kat_vectors, the three "philox4x32 10" lines (counter, key, result).
  using random_draws::philox4x32_10;
  using W4 = std::array<std::uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (W4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (W4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (W4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(RandomDraws, UnitValuesUseTheStatedBits) {
  // Section 4: 53 bits (hi << 21 | lo >> 11) * 2^-53 and 24 bits (w >> 8) * 2^-24.
  EXPECT_EQ(random_draws::unit_double(0, 0), 0.0);
  EXPECT_EQ(random_draws::unit_double(0xffffffffu, 0xffffffffu), 1.0 - 0x1.0p-53);
  EXPECT_EQ(random_draws::unit_double(0x80000000u, 0), 0.5);
  EXPECT_EQ(random_draws::unit_double(0, 0x800u), 0x1.0p-53);
  EXPECT_EQ(random_draws::unit_float(0xffffffffu), 1.0f - 0x1.0p-24f);
  EXPECT_EQ(random_draws::unit_float(0x100u), 0x1.0p-24f);
}

// ---- Sections 7 and 8: RandomUniform and RandomNormal ----

TEST(RandomOps, UniformFollowsItsLawAndStaysBelowHigh) {
  const std::int64_t n = 200000;
  const Tensor y = run_node("RandomUniform", 22, {}, {unshaped_tensor_value_info("y", kF32)},
                            {ints_attr("shape", {n}), float_attr("low", -2.0f), float_attr("high", 3.0f),
                             float_attr("seed", 7.0f)})
                       .at(0);
  const std::vector<float> v = floats(y);
  ASSERT_EQ(v.size(), static_cast<std::size_t>(n));
  double sum = 0.0;
  std::vector<std::size_t> bins(10, 0);
  for (float x : v) {
    ASSERT_GE(x, -2.0f);
    ASSERT_LT(x, 3.0f);
    sum += x;
    ++bins[static_cast<std::size_t>(std::min(9.0, std::floor((x + 2.0) * 2.0)))];
  }
  // Uniform on [a, b): mean (a + b) / 2, standard deviation (b - a) / sqrt(12).
  expect_within(sum / static_cast<double>(n), 0.5, 5.0 / std::sqrt(12.0), v.size(), "mean");
  // Chi-square over 10 equal bins, 9 degrees of freedom: 27.88 is its 0.999 quantile.
  double chi2 = 0.0;
  const double expected = static_cast<double>(n) / 10.0;
  for (std::size_t c : bins) chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  EXPECT_LT(chi2, 27.88);
}

TEST(RandomOps, NormalFollowsItsLaw) {
  const std::int64_t n = 200000;
  const Tensor y = run_node("RandomNormal", 22, {}, {unshaped_tensor_value_info("y", kF32)},
                            {ints_attr("shape", {n}), float_attr("mean", 1.5f), float_attr("scale", 2.0f),
                             float_attr("seed", 3.0f)})
                       .at(0);
  const std::vector<float> v = floats(y);
  double sum = 0.0, sum2 = 0.0;
  std::size_t within_one = 0;
  for (float x : v) {
    sum += x;
    sum2 += (x - 1.5) * (x - 1.5);
    if (std::fabs(x - 1.5) < 2.0) ++within_one;
  }
  const auto count = static_cast<double>(n);
  expect_within(sum / count, 1.5, 2.0, v.size(), "mean");
  // The variance's estimator has standard deviation sigma^2 sqrt(2) per draw for a normal law.
  expect_within(sum2 / count, 4.0, 4.0 * std::sqrt(2.0), v.size(), "variance");
  // P(|Z| < 1) = erf(1 / sqrt 2) = 0.682689492.
  const double p = 0.682689492;
  expect_within(static_cast<double>(within_one) / count, p, std::sqrt(p * (1 - p)), v.size(), "P(|z| < 1)");
}

TEST(RandomOps, LikeFormsTakeTheInputShapeAndType) {
  const Tensor x = Tensor::from_values<double>(DType::F64, Shape{2, 3}, {0, 0, 0, 0, 0, 0});
  for (const char* op : {"RandomUniformLike", "RandomNormalLike"}) {
    const Tensor y = run_node(op, 22, {{"x", x}}, {unshaped_tensor_value_info("y", 11)}, {}).at(0);
    EXPECT_EQ(y.dtype(), DType::F64) << op;
    EXPECT_EQ(y.shape(), (Shape{2, 3})) << op;
  }
  // An integer input needs dtype (the output type follows the input's otherwise).
  const Tensor ints = Tensor::from_values<std::int64_t>(DType::I64, Shape{4}, {1, 2, 3, 4});
  const Tensor y = run_node("RandomUniformLike", 22, {{"x", ints}}, {unshaped_tensor_value_info("y", kF32)},
                            {int_attr("dtype", 1)})
                       .at(0);
  EXPECT_EQ(y.dtype(), DType::F32);
  EXPECT_EQ(y.shape(), (Shape{4}));
  try {
    run_node("RandomUniformLike", 22, {{"x", ints}}, {unshaped_tensor_value_info("y", kF32)}, {});
    ADD_FAILURE() << "an integer input without dtype was accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
  }
}

// ---- Section 2: reproducibility ----

TEST(RandomOps, SeededDrawsRepeatInEveryEngineModeAndThreadCount) {
  const std::vector<IrAttribute> attrs = {ints_attr("shape", {4096}), float_attr("seed", 11.0f)};
  const auto out = unshaped_tensor_value_info("y", kF32);
  const std::vector<std::byte> first = bits(run_node("RandomNormal", 22, {}, {out}, attrs).at(0));
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (int threads : {1, 2}) {
        for (std::uint64_t run_seed : {0ull, 5ull}) {
          EXPECT_EQ(bits(run_node("RandomNormal", 22, {}, {out}, attrs, {engine, mode, threads, run_seed}).at(0)), first)
              << "engine " << static_cast<int>(engine) << " threads " << threads << " run seed " << run_seed;
        }
      }
    }
  }
  // Another seed gives other draws.
  EXPECT_NE(bits(run_node("RandomNormal", 22, {}, {out}, {ints_attr("shape", {4096}), float_attr("seed", 12.0f)}).at(0)),
            first);
}

TEST(RandomOps, UnseededDrawsFollowTheRunSeed) {
  const std::vector<IrAttribute> attrs = {ints_attr("shape", {1024})};
  const auto out = unshaped_tensor_value_info("y", kF32);
  const auto a = bits(run_node("RandomUniform", 22, {}, {out}, attrs, {EngineKind::Reference, ExecutionMode::Exact, 1, 1}).at(0));
  const auto b = bits(run_node("RandomUniform", 22, {}, {out}, attrs, {EngineKind::Optimized, ExecutionMode::Fast, 2, 1}).at(0));
  const auto c = bits(run_node("RandomUniform", 22, {}, {out}, attrs, {EngineKind::Reference, ExecutionMode::Exact, 1, 2}).at(0));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// ---- Section 9: Bernoulli ----

TEST(RandomOps, BernoulliFollowsEachProbability) {
  const std::size_t n = 100000;
  std::vector<float> p(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    p[3 * i] = 0.0f;
    p[3 * i + 1] = 0.3f;
    p[3 * i + 2] = 1.0f;
  }
  const Tensor x = f32(Shape{static_cast<std::int64_t>(3 * n)}, p);
  const Tensor y = run_node("Bernoulli", 22, {{"x", x}}, {unshaped_tensor_value_info("y", kBool)},
                            {int_attr("dtype", 9), float_attr("seed", 1.0f)})
                       .at(0);
  ASSERT_EQ(y.dtype(), DType::Bool);
  const std::vector<std::uint8_t> v = y.to_vector<std::uint8_t>();
  std::size_t ones = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(v[3 * i], 0u) << "p = 0 gave 1 at " << i;
    ASSERT_EQ(v[3 * i + 2], 1u) << "p = 1 gave 0 at " << i;
    ones += v[3 * i + 1];
  }
  const double p03 = static_cast<double>(0.3f);
  expect_within(static_cast<double>(ones) / static_cast<double>(n), p03, std::sqrt(p03 * (1 - p03)), n, "P(1)");
}

TEST(RandomOps, BernoulliRefusesANonProbability) {
  for (float bad : {-0.25f, 1.5f, std::nanf("")}) {
    try {
      run_node("Bernoulli", 22, {{"x", f32(Shape{2}, {0.5f, bad})}}, {unshaped_tensor_value_info("y", kF32)}, {});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput) << e.what();
      EXPECT_NE(std::string(e.what()).find("element 1"), std::string::npos) << e.what();
    }
  }
}

// ---- Section 11: Dropout in training mode ----

TEST(RandomOps, TrainingDropoutKeepsAtTheRateAndScalesTheKept) {
  const std::size_t n = 100000;
  std::vector<float> xv(n);
  for (std::size_t i = 0; i < n; ++i) xv[i] = static_cast<float>(i % 97) - 48.0f;
  const Tensor x = f32(Shape{static_cast<std::int64_t>(n)}, xv);
  const Tensor ratio = f32(Shape{}, {0.25f});
  const Tensor training = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {1});
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    const std::vector<Tensor> out =
        run_node("Dropout", 22, {{"x", x}, {"r", ratio}, {"t", training}},
                 {unshaped_tensor_value_info("y", kF32), unshaped_tensor_value_info("z", kBool)},
                 {int_attr("seed", 4)}, {engine, ExecutionMode::Exact, 2, 0});
    const std::vector<float> y = floats(out[0]);
    const std::vector<std::uint8_t> mask = out[1].to_vector<std::uint8_t>();
    std::size_t kept = 0;
    const float scale = static_cast<float>(1.0 / (1.0 - static_cast<double>(0.25f)));  // 4/3 in binary32
    for (std::size_t i = 0; i < n; ++i) {
      if (mask[i]) {
        ++kept;
        ASSERT_EQ(y[i], xv[i] * scale) << i;
      } else {
        ASSERT_EQ(y[i], 0.0f) << i;
      }
    }
    expect_within(static_cast<double>(kept) / static_cast<double>(n), 0.75, std::sqrt(0.75 * 0.25), n, "kept");
  }
}

TEST(RandomOps, TrainingDropoutRefusesARatioOfOne) {
  const Tensor training = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {1});
  try {
    run_node("Dropout", 22, {{"x", f32(Shape{2}, {1, 2})}, {"r", f32(Shape{}, {1.0f})}, {"t", training}},
             {unshaped_tensor_value_info("y", kF32)}, {});
    ADD_FAILURE() << "ratio 1 was accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput) << e.what();
  }
}

// ---- Section 10: Multinomial ----

TEST(RandomOps, MultinomialFollowsTheSoftmaxOfEachRow) {
  // Row 0: log of (0.2, 0.5, 0.3); row 1: class 1 impossible (-inf), classes 0 and 2 equal.
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = f32(Shape{2, 3}, {std::log(0.2f), std::log(0.5f), std::log(0.3f), 0.0f, -inf, 0.0f});
  const std::int64_t samples = 60000;
  const Tensor y = run_node("Multinomial", 7, {{"x", x}}, {unshaped_tensor_value_info("y", kI64)},
                            {int_attr("sample_size", samples), int_attr("dtype", 7), float_attr("seed", 2.0f)})
                       .at(0);
  ASSERT_EQ(y.shape(), (Shape{2, samples}));
  const std::vector<std::int64_t> v = y.to_vector<std::int64_t>();
  std::array<std::size_t, 3> row0{}, row1{};
  for (std::int64_t k = 0; k < samples; ++k) {
    ++row0.at(static_cast<std::size_t>(v[static_cast<std::size_t>(k)]));
    ++row1.at(static_cast<std::size_t>(v[static_cast<std::size_t>(samples + k)]));
  }
  const auto n = static_cast<std::size_t>(samples);
  const double probs[3] = {0.2, 0.5, 0.3};
  for (std::size_t j = 0; j < 3; ++j) {
    // The probabilities of the float32 logits differ from 0.2/0.5/0.3 by about 1e-8: far inside the bound.
    expect_within(static_cast<double>(row0[j]) / samples, probs[j], std::sqrt(probs[j] * (1 - probs[j])), n,
                  "row 0 class " + std::to_string(j));
  }
  EXPECT_EQ(row1[1], 0u);
  expect_within(static_cast<double>(row1[0]) / samples, 0.5, 0.5, n, "row 1 class 0");
}

// A bad attribute is InvalidModel, a bad fed value InvalidInput, each naming what is wrong.
TEST(RandomOps, RefusalsSayWhy) {
  struct Case {
    std::string op;
    std::int64_t opset;
    std::vector<NodeInput> inputs;
    std::vector<IrAttribute> attributes;
    SessionErrorKind kind;
    std::string why;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Case> cases = {
      {"RandomUniform", 22, {}, {}, SessionErrorKind::InvalidModel, "`shape` is required"},
      {"RandomUniform", 22, {}, {ints_attr("shape", {2, -1})}, SessionErrorKind::InvalidModel, "negative extent"},
      {"RandomUniform", 22, {}, {ints_attr("shape", {2}), int_attr("dtype", 6)}, SessionErrorKind::InvalidModel,
       "dtype 6"},
      {"RandomUniform", 22, {}, {ints_attr("shape", {2}), float_attr("high", inf)}, SessionErrorKind::InvalidModel,
       "high must be finite"},
      {"RandomNormal", 22, {}, {ints_attr("shape", {2}), float_attr("scale", std::nanf(""))},
       SessionErrorKind::InvalidModel, "scale must be finite"},
      {"Multinomial", 7, {{"x", f32(Shape{3}, {0, 0, 0})}}, {}, SessionErrorKind::InvalidModel, "rank 1"},
      {"Multinomial", 7, {{"x", f32(Shape{1, 2}, {0, std::nanf("")})}}, {}, SessionErrorKind::InvalidInput,
       "row 0 holds a NaN"},
      {"Multinomial", 7, {{"x", f32(Shape{1, 2}, {-inf, -inf})}}, {}, SessionErrorKind::InvalidInput,
       "no finite log-probability"},
      {"Multinomial", 7, {{"x", f32(Shape{1, 2}, {0, 0})}}, {int_attr("dtype", 1)}, SessionErrorKind::InvalidModel,
       "not int32 or int64"},
  };
  for (const Case& c : cases) {
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      try {
        run_node(c.op, c.opset, c.inputs, {unshaped_tensor_value_info("y", kF32)}, c.attributes, {engine});
        ADD_FAILURE() << c.op << ": accepted, expected '" << c.why << "'";
      } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), c.kind) << c.op << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << c.op << ": " << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
