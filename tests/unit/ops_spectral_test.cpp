// Spectral operators (spec/ops/spectral.md): values worked by hand from the section's formulas
// and every refusal the page lists. ONNX Runtime's values are checked by the oracle family
// `breadth`, the backend data by conformance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}
Tensor i64(std::int64_t v) { return Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {v}); }

std::vector<float> run(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                       std::vector<IrAttribute> attrs = {}, ExecutionMode mode = ExecutionMode::Fast) {
  return run_one_node(op, opset, inputs, {unshaped_tensor_value_info("y", 1)}, std::move(attrs), mode)
      .at(0)
      .to_vector<float>();
}

// Section 2: the DFT of [1, 2, 3, 4] is [10, -2 + 2i, -2, -2 - 2i]; one-sided keeps bins 0..2;
// the inverse of that spectrum gives the signal back.
TEST(OpsSpectral, DftOfFourSamples) {
  const Tensor x = f32({4, 1}, {1, 2, 3, 4});
  const std::vector<float> y = run("DFT", 20, {{"x", x}});
  const std::vector<float> want{10, 0, -2, 2, -2, 0, -2, -2};
  ASSERT_EQ(y.size(), want.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
  const std::vector<float> half = run("DFT", 20, {{"x", x}}, {int_attr("onesided", 1)});
  ASSERT_EQ(half.size(), 6u);
  for (std::size_t i = 0; i < half.size(); ++i) EXPECT_NEAR(half[i], want[i], 1e-6) << i;
  const std::vector<float> back = run("DFT", 20, {{"x", f32({4, 2}, want)}}, {int_attr("inverse", 1)});
  const std::vector<float> signal{1, 0, 2, 0, 3, 0, 4, 0};
  for (std::size_t i = 0; i < back.size(); ++i) EXPECT_NEAR(back[i], signal[i], 1e-6) << i;
  // IRFFT from the three one-sided bins: L = 2 (3 - 1) = 4 real samples.
  const std::vector<float> real = run("DFT", 20, {{"x", f32({3, 2}, {10, 0, -2, 2, -2, 0})}},
                                      {int_attr("onesided", 1), int_attr("inverse", 1)});
  ASSERT_EQ(real.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(real[i], static_cast<float>(i + 1), 1e-6) << i;
}

// Section 3: a periodic Hann window of 4 samples is [0, 0.5, 1, 0.5]; symmetric of 3 is [0, 1, 0].
TEST(OpsSpectral, HannWindowValues) {
  const std::vector<float> p = run("HannWindow", 17, {{"n", i64(4)}});
  const std::vector<float> want{0, 0.5f, 1, 0.5f};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(p[i], want[i], 1e-7) << i;
  const std::vector<float> s = run("HannWindow", 17, {{"n", i64(3)}}, {int_attr("periodic", 0)});
  EXPECT_NEAR(s[0], 0, 1e-7);
  EXPECT_NEAR(s[1], 1, 1e-7);
  EXPECT_NEAR(s[2], 0, 1e-7);
  EXPECT_TRUE(std::isnan(run("HannWindow", 17, {{"n", i64(1)}}, {int_attr("periodic", 0)}).at(0)));
}

// The scalars are fed as graph inputs here, so a value a node refuses is the caller's:
// InvalidInput (spec/errors.md section 3.2); a refused shape or attribute stays InvalidModel.
TEST(OpsSpectral, Refusals) {
  auto kind = [](const std::function<void()>& f) { return session_error_kind_of(f); };
  // DFT: the complex axis is not a signal axis; a last axis of 3; one-sided forward of a complex
  // input; dft_length 0.
  const Tensor c = f32({4, 2}, {1, 0, 2, 0, 3, 0, 4, 0});
  EXPECT_EQ(kind([&] { run("DFT", 20, {{"x", c}, {"", {}}, {"axis", i64(-1)}}); }), SessionErrorKind::InvalidInput);
  EXPECT_EQ(kind([&] { run("DFT", 20, {{"x", f32({2, 3}, {1, 2, 3, 4, 5, 6})}}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { run("DFT", 20, {{"x", c}}, {int_attr("onesided", 1)}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { run("DFT", 20, {{"x", c}, {"len", i64(0)}}); }), SessionErrorKind::InvalidInput);
  // MelWeightMatrix runs in exact mode (section 5, issue 17); its values are checked in
  // MelWeightMatrixIsExact.
  // STFT: a frame longer than the signal; a window of another length than frame_length; step 0.
  const Tensor sig = f32({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_EQ(kind([&] { run("STFT", 17, {{"s", sig}, {"step", i64(1)}, {"", {}}, {"len", i64(5)}}); }),
            SessionErrorKind::InvalidInput);
  EXPECT_EQ(kind([&] { run("STFT", 17, {{"s", sig}, {"step", i64(1)}, {"w", f32({3}, {1, 1, 1})}, {"len", i64(2)}}); }),
            SessionErrorKind::InvalidInput);
  EXPECT_EQ(kind([&] { run("STFT", 17, {{"s", sig}, {"step", i64(0)}}); }), SessionErrorKind::InvalidInput);
  // Windows: a negative size; MelWeightMatrix: an upper edge above the Nyquist frequency.
  EXPECT_EQ(kind([&] { run("HammingWindow", 17, {{"n", i64(-1)}}); }), SessionErrorKind::InvalidInput);
  const Tensor lo = Tensor::from_values<float>(DType::F32, Shape{}, {0.0f});
  const Tensor hi = Tensor::from_values<float>(DType::F32, Shape{}, {20000.0f});
  EXPECT_EQ(kind([&] {
              run("MelWeightMatrix", 17, {{"b", i64(4)}, {"n", i64(64)}, {"r", i64(16000)}, {"lo", lo}, {"hi", hi}});
            }),
            SessionErrorKind::InvalidInput);
}

// Section 2: quarter turns are exact (r = 0 gives the cores' 1 and 0), so the DFT of [1, 2, 3, 4]
// and the periodic Hann window of 4 samples come out exactly, in both modes, with the same bits.
TEST(OpsSpectral, QuarterTurnsAreExactInBothModes) {
  const Tensor x = f32({4, 1}, {1, 2, 3, 4});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(run("DFT", 20, {{"x", x}}, {}, mode), (std::vector<float>{10, 0, -2, 2, -2, 0, -2, -2}));
    EXPECT_EQ(run("HannWindow", 17, {{"n", i64(4)}}, {}, mode), (std::vector<float>{0, 0.5f, 1, 0.5f}));
  }
  // Other turns: exact mode gives fast mode's bits (one arithmetic), and the values agree with
  // the binary64 cosine to the float32 rounding.
  const std::vector<float> fast = run("HammingWindow", 17, {{"n", i64(13)}}, {}, ExecutionMode::Fast);
  EXPECT_EQ(run("HammingWindow", 17, {{"n", i64(13)}}, {}, ExecutionMode::Exact), fast);
  for (std::size_t i = 0; i < fast.size(); ++i) {
    const double want = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(2.0 * 3.141592653589793 * static_cast<double>(i) / 13.0);
    EXPECT_NEAR(fast[i], want, 1e-7) << i;
  }
}

// Section 5 (issue 17): exact, with the binary64 log and exp of spec/exact-transcendentals.md
// section 15. 4 bins, dft_length 64, 16 kHz, 0 to 4000 Hz: expected from the onnx package's
// reference evaluator (MelWeightMatrix, opset 17): edges on bins 1, 2, 4, 7, 11; rows 0 and 11-32
// are zero. Exact mode and fast mode give the same bits.
TEST(OpsSpectral, MelWeightMatrixIsExact) {
  const std::vector<NodeInput> in{{"b", i64(4)},
                                  {"n", i64(64)},
                                  {"r", i64(16000)},
                                  {"lo", Tensor::from_values<float>(DType::F32, Shape{}, {0.0f})},
                                  {"hi", Tensor::from_values<float>(DType::F32, Shape{}, {4000.0f})}};
  const std::vector<float> y = run("MelWeightMatrix", 17, in, {}, ExecutionMode::Exact);
  ASSERT_EQ(y.size(), 33u * 4u);
  std::vector<float> want(33 * 4, 0.0f);
  const float third = static_cast<float>(1.0 / 3.0), two_thirds = static_cast<float>(2.0 / 3.0);
  const std::vector<std::vector<float>> rows = {{1, 0, 0, 0},         {0, 1, 0, 0},         {0, 0.5f, 0.5f, 0},
                                                {0, 0, 1, 0},         {0, 0, two_thirds, third}, {0, 0, third, two_thirds},
                                                {0, 0, 0, 1},         {0, 0, 0, 0.75f},     {0, 0, 0, 0.5f},
                                                {0, 0, 0, 0.25f}};
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < 4; ++c) want[(r + 1) * 4 + c] = rows[r][c];
  }
  EXPECT_EQ(y, want);
  EXPECT_EQ(run("MelWeightMatrix", 17, in, {}, ExecutionMode::Fast), y);
}

}  // namespace
}  // namespace onemodel
