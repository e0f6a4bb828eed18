// The flattened-plane depthwise kernel (optimized/kernels/conv/depthwise_flat.*) on the AVX-512
// path, called directly whatever the selection rule says: exact mode bit for bit against the naive
// loop of kernels-depthwise.md "What each output is" (tests/kernels/depthwise_definition.hpp) at 1
// and 2 threads, over every row width it takes (1 to 15), planes up to 256 positions, windows of 1
// to 49 taps with symmetric and asymmetric pads, channel multipliers, batches, partial chunks and
// special values; an infinite weight on a padding tap gives NaN (a real product with +0); fast
// mode one fused multiply-add per tap in order; with a fused normalization, residual and
// activation the plane walk's bits; the rule (depthwise_flat_fits, depthwise_takes_flat). A
// machine without AVX-512 reports the kernel tests skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_flat.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/depthwise_definition.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;
using depthwise_test::Case;
using depthwise_test::naive;
using depthwise_test::random_data;

#if defined(__x86_64__)
constexpr bool kIsX86_64 = true;
#else
constexpr bool kIsX86_64 = false;
#endif

// An unstrided case whose output is as large as its input: pads adding up to k - 1 both ways.
Case same_size(std::size_t channels, std::size_t h, std::size_t w, std::size_t kh, std::size_t kw, std::size_t pt,
               std::size_t pl) {
  Case c;
  c.channels = channels;
  c.in_h = h;
  c.in_w = w;
  c.kh = kh;
  c.kw = kw;
  c.pt = pt;
  c.pb = kh - 1 - pt;
  c.pl = pl;
  c.pr = kw - 1 - pl;
  return c;
}

#if defined(__x86_64__)
bool runs_avx512() { return kernel_tests::machine_runs(Isa::Avx512); }

std::vector<float> run_flat(const Case& c, const Data& d, bool exact, ThreadPool* pool,
                            const ConvActivation* activation = nullptr) {
  const Conv2dShape s = c.shape();
  std::vector<float> y(c.batch * s.out_channels * s.out_plane(), 12345.0f);
  const KernelContext context{Isa::Avx512, exact, pool};
  depthwise_flat_conv2d_f32__avx512(context, s, d.x.data(), d.w.data(), c.bias ? d.b.data() : nullptr, y.data(),
                                    activation);
  return y;
}

// Exact bits against the definition at 1 and 2 threads (every call shared); "" when equal.
std::string check_exact(const Case& c, std::uint32_t seed, bool special) {
  if (!depthwise_flat_fits(c.shape())) return c.describe() + " does not fit the kernel";
  const Data d = random_data(c, seed, special);
  const std::vector<float> expected = naive(c, d, nullptr, nullptr);
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (ThreadPool* pool : {&one, &two}) {
    const std::string difference = conv_test::first_bit_difference(run_flat(c, d, true, pool), expected);
    if (!difference.empty()) return c.describe() + " threads " + std::to_string(pool->threads()) + difference;
  }
  return "";
}

TEST(DepthwiseFlat, ExactSweepOfWidthsHeightsAndWindows) {
  if (!runs_avx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseFlat.ExactSweepOfWidthsHeightsAndWindows");
  std::uint32_t seed = 1;
  // Every row width the rule gives it, heights up to a plane of 256 positions (16 vectors), the
  // square windows of the models and the largest it takes; 17 and 33 channels leave a partial
  // last chunk of 16 planes.
  for (std::size_t w = 1; w <= 15; ++w) {
    for (std::size_t h : {1u, 3u, 7u, 14u, 17u}) {
      if (h * w > kDepthwiseFlatMaxPlane) continue;
      for (std::size_t k : {1u, 3u, 5u, 7u}) {
        Case c = same_size(w % 2 == 0 ? 17 : 33, h, w, k, k, k / 2, k / 2);
        c.multiplier = (w + h) % 3 == 0 ? 2 : 1;
        c.batch = w % 4 == 1 ? 2 : 1;
        c.bias = (w + k) % 2 == 0;
        ASSERT_EQ(check_exact(c, seed++, false), "");
      }
    }
  }
}

TEST(DepthwiseFlat, ExactAsymmetricPadsRectangularWindowsAndSpecialValues) {
  if (!runs_avx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseFlat.ExactAsymmetricPadsRectangularWindowsAndSpecialValues");
  std::uint32_t seed = 300;
  struct Window {
    std::size_t h, w, kh, kw, pt, pl;
  };
  // Pads all on one side (SAME_UPPER and SAME_LOWER of even windows), 1-D windows, a 16 x 16
  // plane (the largest) and the 7 x 7 and 14 x 14 maps of the mobile networks.
  for (const Window& win : {Window{7, 7, 3, 3, 0, 2}, Window{7, 7, 2, 2, 1, 0}, Window{14, 14, 4, 4, 1, 2},
                            Window{9, 13, 1, 5, 0, 4}, Window{12, 5, 5, 1, 4, 0}, Window{16, 16, 3, 3, 1, 1},
                            Window{14, 14, 5, 5, 2, 2}, Window{7, 7, 7, 7, 3, 3}, Window{11, 15, 3, 7, 2, 3}}) {
    for (bool special : {false, true}) {
      Case c = same_size(19, win.h, win.w, win.kh, win.kw, win.pt, win.pl);
      c.bias = special;
      ASSERT_EQ(check_exact(c, seed++, special), "");
    }
  }
}

TEST(DepthwiseFlat, InfiniteWeightMeetsPaddingAsNaN) {
  if (!runs_avx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  Case c = same_size(17, 4, 4, 3, 3, 1, 1);
  Data d;
  d.x.assign(17 * 16, 1.0f);
  d.w.assign(17 * 9, 0.0f);
  d.w[16 * 9] = std::numeric_limits<float>::infinity();  // channel 16's top-left tap
  d.b.assign(17, 0.0f);
  const std::vector<float> y = run_flat(c, d, true, nullptr);
  EXPECT_EQ(bits(y[16 * 16]), 0x7FC00000u);                        // output (0, 0): its tap is padding
  EXPECT_EQ(y[16 * 16 + 5], std::numeric_limits<float>::infinity());  // output (1, 1): its tap is an input
  EXPECT_EQ(bits(y[0]), 0u);                                         // channel 0: +0
}

// Fast mode: +0, one fused multiply-add per tap in row-major order (std::fma, the hardware's
// operation on this path), the bias one rounded addition; the same bits at 1 and 2 threads.
TEST(DepthwiseFlat, FastIsOneFusedMultiplyAddPerTapInOrder) {
  if (!runs_avx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseFlat.FastIsOneFusedMultiplyAddPerTapInOrder");
  std::uint32_t seed = 600;
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (const Case& base : {same_size(24, 7, 7, 3, 3, 1, 1), same_size(17, 14, 14, 3, 3, 1, 1),
                           same_size(9, 14, 14, 5, 5, 2, 2), same_size(16, 5, 11, 7, 7, 3, 3)}) {
    Case c = base;
    c.bias = c.channels % 2 == 0;
    const Data d = random_data(c, seed++, false);
    const std::vector<float> expected = depthwise_test::naive_fused(c, d);
    for (ThreadPool* pool : {&one, &two}) {
      EXPECT_EQ(conv_test::first_bit_difference(run_flat(c, d, false, pool), expected), "")
          << c.describe() << " threads " << pool->threads();
    }
  }
}

// With a fused BatchNormalization, residual and activation the plane walk's bits given the same
// epilogue, exact and fast mode, at 1 and 2 threads.
TEST(DepthwiseFlat, FusedEpilogueMatchesThePlaneWalk) {
  if (!runs_avx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseFlat.FusedEpilogueMatchesThePlaneWalk");
  Case c = same_size(21, 14, 14, 3, 3, 1, 1);
  c.batch = 2;
  c.bias = true;
  const Conv2dShape s = c.shape();
  const Data d = random_data(c, 77, true);
  const Data extra = conv_test::random_data(s.batch * s.out_channels * s.out_plane(), s.out_channels,
                                            s.out_channels, 78, true, 6);
  for (bool exact : {true, false}) {
    for (ew::UnaryOp op : {ew::UnaryOp::Relu, ew::UnaryOp::HardSwish}) {
      ConvActivation fused;
      fused.norm_scale = extra.w.data();
      fused.norm_shift = extra.b.data();
      fused.residual = extra.x.data();
      fused.residual_first = op == ew::UnaryOp::Relu;
      fused.args.op = op;
      ThreadPool one(1), two(2, two_threads::kAlways);
      for (ThreadPool* pool : {&one, &two}) {
        std::vector<float> walk(s.batch * s.out_channels * s.out_plane(), 5.0f);
        const KernelContext context{Isa::Avx512, exact, pool};
        depthwise_walk_conv2d_f32(context, s, d.x.data(), d.w.data(), d.b.data(), walk.data(), &fused);
        EXPECT_EQ(conv_test::first_bit_difference(run_flat(c, d, exact, pool, &fused), walk), "")
            << (exact ? "exact" : "fast") << " threads " << pool->threads();
      }
    }
  }
}
#endif  // __x86_64__

// What the kernel can compute, and which shapes depthwise_conv2d_f32 gives it (AVX-512 only).
TEST(DepthwiseFlat, SelectionRule) {
  Case mobile = same_size(576, 14, 14, 3, 3, 1, 1);
  EXPECT_TRUE(depthwise_flat_fits(mobile.shape()));
  Case strided = mobile;
  strided.sh = strided.sw = 2;
  EXPECT_FALSE(depthwise_flat_fits(strided.shape()));
  Case dilated = same_size(8, 7, 7, 3, 3, 2, 2);
  dilated.dh = dilated.dw = 2;
  EXPECT_FALSE(depthwise_flat_fits(dilated.shape()));
  EXPECT_FALSE(depthwise_flat_fits(same_size(8, 17, 16, 3, 3, 1, 1).shape()));  // 272 positions
  EXPECT_FALSE(depthwise_flat_fits(same_size(8, 9, 9, 9, 9, 4, 4).shape()));    // 81 taps
  Case valid = same_size(8, 7, 7, 3, 3, 0, 0);
  valid.pb = valid.pr = 0;  // a 5 x 5 output from a 7 x 7 input
  EXPECT_FALSE(depthwise_flat_fits(valid.shape()));
  // Taken: 3x3 windows on rows under 16, AVX-512, fast mode (5x5 and 7x7, and exact mode, stay
  // with the channel-blocked kernel, measured faster there: depthwise_flat.cpp).
  EXPECT_EQ(depthwise_takes_flat(Isa::Avx512, false, mobile.shape()), kIsX86_64);
  EXPECT_EQ(depthwise_takes_flat(Isa::Avx512, false, same_size(1152, 7, 7, 3, 3, 1, 1).shape()), kIsX86_64);
  EXPECT_FALSE(depthwise_takes_flat(Isa::Avx512, true, mobile.shape()));
  for (bool exact : {true, false}) {
    EXPECT_FALSE(depthwise_takes_flat(Isa::Avx512, exact, same_size(480, 14, 14, 5, 5, 2, 2).shape()));
    EXPECT_FALSE(depthwise_takes_flat(Isa::Avx512, exact, same_size(64, 16, 16, 3, 3, 1, 1).shape()));
    EXPECT_FALSE(depthwise_takes_flat(Isa::Avx2, exact, mobile.shape()));
    EXPECT_FALSE(depthwise_takes_flat(Isa::Scalar, exact, mobile.shape()));
  }
}

}  // namespace
}  // namespace onemodel::opt
