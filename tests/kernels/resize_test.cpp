// The float32 linear Resize kernel (optimized/kernels/resize/resize.hpp) on tap tables made here,
// against the two passes written out from spec/ops/products-conv.md section 10.3: per pass and
// output, from +0, weight * sample in tap order, taps of weight exactly zero (either sign) left
// out, NaN stored as 0x7FC00000. The operator tests (diff_resize_norm_concat_test) reach the
// kernel through the reference's own tables, whose first linear weight is never zero; here the
// tables hold zero, negative zero, NaN and infinite weights in either place, so every selection
// of the kernel's W pass is exercised. Bit for bit at 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/resize/resize.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::opt::resize {
namespace {

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

float pass(const AxisTap& t, float a, float b) {
  volatile float v = 0.0f;
  if (t.weight0 != 0.0f) {
    volatile float p = t.weight0 * a;
    v = v + p;
  }
  if (t.weight1 != 0.0f) {
    volatile float p = t.weight1 * b;
    v = v + p;
  }
  const float out = v;
  return std::isnan(out) ? std::bit_cast<float>(std::uint32_t{0x7FC00000u}) : out;
}

float special_or(std::mt19937& rng, float usual) {
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(std::uint32_t{0xFFC00000u}),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            1.0f};
  return rng() % 5 == 0 ? specials[rng() % 8] : usual;
}

std::vector<AxisTap> table(std::int64_t in, std::int64_t out, std::mt19937& rng) {
  std::uniform_real_distribution<float> w(-0.5f, 1.5f);
  std::vector<AxisTap> t(static_cast<std::size_t>(out));
  for (AxisTap& tap : t) {
    tap.index0 = static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(in));
    tap.index1 = static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(in));
    tap.weight0 = special_or(rng, w(rng));
    tap.weight1 = special_or(rng, w(rng));
  }
  return t;
}

// H's pass then W's (Resize2dShape::w_first false), or W's then H's.
std::vector<float> naive(const Resize2dShape& s, const std::vector<AxisTap>& ht, const std::vector<AxisTap>& wt,
                         const std::vector<float>& x) {
  std::vector<float> y;
  for (std::int64_t p = 0; p < s.planes; ++p) {
    const float* plane = x.data() + p * s.in_h * s.in_w;
    for (std::int64_t oh = 0; oh < s.out_h; ++oh) {
      const AxisTap& th = ht[static_cast<std::size_t>(oh)];
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) {
        const AxisTap& tw = wt[static_cast<std::size_t>(ow)];
        auto at = [&](std::int64_t ih, std::int64_t iw) { return plane[ih * s.in_w + iw]; };
        if (!s.w_first) {
          const float a = pass(th, at(th.index0, tw.index0), at(th.index1, tw.index0));
          const float b = pass(th, at(th.index0, tw.index1), at(th.index1, tw.index1));
          y.push_back(pass(tw, a, b));
        } else {
          const float a = pass(tw, at(th.index0, tw.index0), at(th.index0, tw.index1));
          const float b = pass(tw, at(th.index1, tw.index0), at(th.index1, tw.index1));
          y.push_back(pass(th, a, b));
        }
      }
    }
  }
  return y;
}

std::string check(std::int64_t planes, std::int64_t in_h, std::int64_t in_w, std::int64_t out_h, std::int64_t out_w,
                  bool w_first, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Resize2dShape s;
  s.planes = planes;
  s.in_h = in_h;
  s.in_w = in_w;
  s.out_h = out_h;
  s.out_w = out_w;
  s.linear = true;
  s.w_first = w_first;
  const std::vector<AxisTap> ht = table(in_h, out_h, rng), wt = table(in_w, out_w, rng);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> x(static_cast<std::size_t>(planes * in_h * in_w));
  for (float& v : x) v = special_or(rng, d(rng));
  const std::vector<float> expected = naive(s, ht, wt, x);
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (ThreadPool* pool : {&one, &two}) {
    for (bool exact : {true, false}) {
      std::vector<float> y(expected.size(), 777.0f);
      resize_2d_f32(KernelContext{Isa::Scalar, exact, pool}, s, ht.data(), wt.data(), x.data(), y.data());
      for (std::size_t i = 0; i < y.size(); ++i) {
        if (bits(y[i]) != bits(expected[i])) {
          return "planes " + std::to_string(planes) + " in " + std::to_string(in_h) + "x" + std::to_string(in_w) +
                 " out " + std::to_string(out_h) + "x" + std::to_string(out_w) + " element " + std::to_string(i) +
                 ": " + std::to_string(y[i]) + " vs " + std::to_string(expected[i]);
        }
      }
    }
  }
  return "";
}

TEST(ResizeKernel, LinearTablesWithZeroAndSpecialWeights) {
  two_threads::RequireSharedCalls shared("ResizeKernel.LinearTablesWithZeroAndSpecialWeights");
  std::uint32_t seed = 1;
  // Rows the W pass tables (up to 512 long), rows longer than that, W's pass first; planes enough
  // for several chunks (32768 outputs each) so two threads share them.
  for (int repeat = 0; repeat < 3; ++repeat) {
    EXPECT_EQ(check(21, 14, 14, 224, 224, false, seed++), "");
    EXPECT_EQ(check(3, 5, 9, 17, 31, false, seed++), "");
    EXPECT_EQ(check(2, 3, 600, 4, 1300, false, seed++), "");
    EXPECT_EQ(check(2, 4, 520, 6, 300, false, seed++), "");
    EXPECT_EQ(check(3, 9, 20, 12, 7, true, seed++), "");
  }
}

}  // namespace
}  // namespace onemodel::opt::resize
