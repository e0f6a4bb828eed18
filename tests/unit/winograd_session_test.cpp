// A 3x3 convolution that fast mode runs by Winograd (spec/optimized-engine.md section 6), through a
// session: against the reference engine, which sums each output directly (spec/ops/products-conv.md
// section 6). Finite inputs: every output within 1e-5 of the largest output (the kernel test holds
// the tight bound). An infinite input or weight: the direct sum decides, so each output is an
// infinity of the reference's sign where the reference has one and NaN exactly where it has NaN
// (the transforms alone would have made NaN of infinities); with a fused residual and Relu too.
// At one and two threads, which give the same bits. On a machine without AVX-512 the optimized
// engine takes no Winograd path and the comparisons still hold (they are then not about it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/winograd.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

constexpr std::int64_t kIn = 16, kOut = 24, kSide = 14;

Tensor uniform(const Shape& shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t = Tensor::empty(DType::F32, shape);
  for (float& v : t.mutable_data<float>()) v = dist(rng);
  return t;
}

// A tensor of its own with t's values.
Tensor copy_of(const Tensor& t) {
  const auto v = t.data<float>();
  return Tensor::from_values<float>(DType::F32, t.shape(), std::span<const float>(v.data(), v.size()));
}

// Conv 3x3 pad 1 (+ bias), then with `residual` an Add of the input r and a Relu.
IrModel model(const Tensor& w, const Tensor& b, bool residual) {
  GraphBuilder g(17);
  g.input("x", DType::F32, Shape{1, kIn, kSide, kSide}).initializer("w", w).initializer("b", b);
  g.node("Conv", {"x", "w", "b"}, {residual ? "c" : "y"}, {ir_builder::ints_attr("pads", {1, 1, 1, 1})});
  if (residual) {
    g.input("r", DType::F32, Shape{1, kOut, kSide, kSide});
    g.node("Add", {"c", "r"}, {"s"}).node("Relu", {"s"}, {"y"});
  }
  return g.output("y", DType::F32).build();
}

Tensor run(const IrModel& m, EngineKind engine, int threads, const Feeds& feeds) {
  SessionOptions options;
  options.engine = engine;
  options.mode = ExecutionMode::Fast;
  options.intra_op_threads = threads;
  return Session::create(m, options).run(feeds)[0];
}

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(t.element_count()));
  std::memcpy(out.data(), t.data<float>().data(), out.size() * 4);
  return out;
}

// "" or the first output where `got` is not what the direct sum allows.
std::string compare(const Tensor& got, const Tensor& want) {
  const auto g = got.data<float>(), w = want.data<float>();
  float largest = 0.0f;
  for (float v : w) {
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    const bool ok = std::isnan(w[i]) ? std::isnan(g[i])
                    : std::isinf(w[i]) ? g[i] == w[i]
                                       : std::isfinite(g[i]) && std::fabs(g[i] - w[i]) <= 1e-5f * largest;
    if (!ok) return "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " + std::to_string(w[i]);
  }
  return "";
}

TEST(WinogradSession, TheLayerIsWinogradsOnThisPath) {
  opt::Conv2dShape s;
  s.in_channels = kIn;
  s.out_channels = kOut;
  s.in_h = s.in_w = s.out_h = s.out_w = kSide;
  s.kernel_h = s.kernel_w = 3;
  s.pad_top = s.pad_left = 1;
  // What the test below is about on an AVX-512 machine: fast mode's path takes this layer.
#if defined(__x86_64__)
  EXPECT_TRUE(opt::winograd_takes(opt::Isa::Avx512, false, s));
#else
  EXPECT_FALSE(opt::winograd_takes(opt::Isa::Avx512, false, s));
#endif
}

TEST(WinogradSession, FiniteInfiniteAndNaNOperandsAsTheDirectSumGivesThem) {
  const Tensor w = uniform(Shape{kOut, kIn, 3, 3}, 1), b = uniform(Shape{kOut}, 2);
  const Tensor x = uniform(Shape{1, kIn, kSide, kSide}, 3), r = uniform(Shape{1, kOut, kSide, kSide}, 4);
  const float inf = std::numeric_limits<float>::infinity();
  struct Variant {
    std::string name;
    std::size_t x_at;  // an index into x to overwrite, or npos
    float x_value;
    std::size_t w_at;
    float w_value;
  };
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::vector<Variant> variants = {
      {"finite", kNone, 0.0f, kNone, 0.0f},
      {"+inf input", 5 * kSide * kSide + 6 * kSide + 7, inf, kNone, 0.0f},
      {"-inf input at a corner", 0, -inf, kNone, 0.0f},
      {"NaN input", 9 * kSide * kSide + 13, std::numeric_limits<float>::quiet_NaN(), kNone, 0.0f},
      {"+inf weight", kNone, 0.0f, 3 * kIn * 9 + 2 * 9 + 4, inf},
  };
  for (bool residual : {false, true}) {
    for (const Variant& v : variants) {
      SCOPED_TRACE(v.name + (residual ? ", residual and Relu" : ""));
      Tensor xv = copy_of(x), wv = copy_of(w);
      if (v.x_at != kNone) xv.mutable_data<float>()[v.x_at] = v.x_value;
      if (v.w_at != kNone) wv.mutable_data<float>()[v.w_at] = v.w_value;
      const IrModel m = model(wv, b, residual);
      Feeds feeds = {{"x", xv}};
      if (residual) feeds.push_back({"r", r});
      const Tensor want = run(m, EngineKind::Reference, 1, feeds);
      const Tensor one = run(m, EngineKind::Optimized, 1, feeds);
      // The two-thread run must really share a call (tests/kernels/two_threads.hpp).
      const opt::two_threads::SessionsAlwaysShare sharing;
      const Tensor two = run(m, EngineKind::Optimized, 2, feeds);
      sharing.require("the Winograd layer at two threads");
      EXPECT_EQ(compare(one, want), "");
      EXPECT_EQ(bits_of(one), bits_of(two));
      if (v.name != "finite" && !residual) {
        // The variant reached the outputs (an infinity or NaN came out), else it tests nothing.
        bool special = false;
        for (float o : want.data<float>()) special = special || !std::isfinite(o);
        EXPECT_TRUE(special);
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
