// The channel-blocked depthwise kernel (optimized/kernels/conv/depthwise_blocked.*) on the AVX-512
// path (blocks of 16 channels) and the AVX2 path (blocks of 8), each that this machine runs,
// called directly whatever the selection rule says: exact mode bit for bit against a naive
// loop written from kernels-depthwise.md "What each output is" and exact-mode.md "Convolution", at
// 1 and 2 threads, with partial channel blocks, channel multipliers, strides, dilations,
// asymmetric pads, rows and planes longer than one 16-wide interleaving step, and special values;
// with a fused normalization, residual and activation the bits of the plane walk given the same
// epilogue; fast mode within the sequential-sum bound and the same at 1 and 2 threads; and the
// selection rule (depthwise_takes_blocked) for the shapes it names. A machine without AVX2 or
// AVX-512 reports these tests skipped.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/depthwise_definition.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

#if defined(__x86_64__)
constexpr bool kIsX86_64 = true;
#else
constexpr bool kIsX86_64 = false;
#endif

using depthwise_test::Case;
using depthwise_test::naive;
using depthwise_test::random_data;

#if defined(__x86_64__)
// The paths of the blocked kernel this machine runs: AVX-512 (16 channels a block), AVX2 (8).
std::vector<Isa> blocked_paths() {
  std::vector<Isa> paths;
  for (Isa isa : {Isa::Avx512, Isa::Avx2}) {
    if (kernel_tests::machine_runs(isa)) paths.push_back(isa);
  }
  return paths;
}

std::vector<float> run_blocked(Isa isa, const Case& c, const Data& d, bool exact, ThreadPool* pool,
                               const ConvActivation* activation = nullptr) {
  const Conv2dShape s = c.shape();
  std::vector<float> y(c.batch * s.out_channels * s.out_plane(), 12345.0f);
  const KernelContext context{isa, exact, pool};
  const float* bias = c.bias ? d.b.data() : nullptr;
  if (isa == Isa::Avx512) {
    depthwise_blocked_conv2d_f32__avx512(context, s, d.x.data(), d.w.data(), bias, y.data(), activation);
  } else {
    depthwise_blocked_conv2d_f32__avx2(context, s, d.x.data(), d.w.data(), bias, y.data(), activation);
  }
  return y;
}

// Exact bits against the definition on every blocked path at 1 and 2 threads (every call shared);
// "" when equal.
std::string check_exact(const Case& c, std::uint32_t seed, bool special) {
  const Data d = random_data(c, seed, special);
  const std::vector<float> expected = naive(c, d, nullptr, nullptr);
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (Isa isa : blocked_paths()) {
    for (ThreadPool* pool : {&one, &two}) {
      const std::vector<float> got = run_blocked(isa, c, d, true, pool);
      if (got.size() != expected.size()) return c.describe() + " size";
      const std::string difference = conv_test::first_bit_difference(got, expected);
      if (!difference.empty()) {
        return c.describe() + " isa " + std::string(isa_name(isa)) + " threads " + std::to_string(pool->threads()) +
               difference;
      }
    }
  }
  return "";
}

// kernels-gemm.md "Fast mode": |y - exact| <= k*u*sum|w*x| + 1e-30, k the number of terms; the
// same bits at 1 and 2 threads.
std::string check_fast(const Case& c, std::uint32_t seed) {
  const Data d = random_data(c, seed, false);
  std::vector<double> value, magnitude;
  naive(c, d, &value, &magnitude);
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>(c.kh * c.kw + (c.bias ? 1 : 0));
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (Isa isa : blocked_paths()) {
    const std::vector<float> first = run_blocked(isa, c, d, false, &one);
    const std::vector<float> second = run_blocked(isa, c, d, false, &two);
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!(std::fabs(first[i] - value[i]) <= terms * u * magnitude[i] + 1e-30)) {
        return c.describe() + " fast isa " + std::string(isa_name(isa)) + " element " + std::to_string(i);
      }
      if (bits(first[i]) != bits(second[i])) return c.describe() + " fast differs between 1 and 2 threads";
    }
  }
  return "";
}

TEST(DepthwiseBlocked, ExactSweepOfChannelsSizesKernelsStrides) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.ExactSweepOfChannelsSizesKernelsStrides");
  std::uint32_t seed = 1;
  // 1, 7, 8, 9, 15, 16, 17, 33 channels: partial, whole and several blocks of 8 and 16; sizes
  // 1..21 (a row of more than 8 or 16 columns and planes of more than 8 or 16 positions take
  // several interleaving steps).
  for (std::size_t channels : {1u, 7u, 8u, 9u, 15u, 16u, 17u, 33u}) {
    for (std::size_t k : {1u, 3u, 5u, 7u}) {
      for (std::size_t stride : {1u, 2u, 3u}) {
        for (std::size_t size : {1u, 4u, 7u, 9u, 14u, 17u, 21u}) {
          Case c;
          c.channels = channels;
          c.multiplier = size % 3 == 1 ? 2 : 1;
          c.batch = size % 4 == 1 ? 2 : 1;
          c.in_h = size;
          c.in_w = size + (k % 2);
          c.kh = c.kw = k;
          c.sh = c.sw = stride;
          c.pt = c.pl = c.pb = c.pr = k / 2;
          c.bias = (size + k) % 2 == 0;
          if (!c.conv_valid()) continue;
          ASSERT_EQ(check_exact(c, seed++, false), "");
        }
      }
    }
  }
}

// The wider rows the rule gives the blocked kernel since session 29 (unstrided 7x7 rows up to 56
// and 5x5 rows of 20 to 56 in exact mode, 7x7 rows under 32 in fast mode): planes of up to 3136
// outputs and padded copies of up to 62 x 62 per block.
TEST(DepthwiseBlocked, ExactOnTheWideRowsOfTheRule) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.ExactOnTheWideRowsOfTheRule");
  std::uint32_t seed = 900;
  struct Wide {
    std::size_t channels, size, k;
  };
  for (const Wide& w : {Wide{17, 56, 7}, Wide{33, 28, 7}, Wide{16, 28, 5}, Wide{15, 40, 5}, Wide{18, 20, 5}}) {
    Case c;
    c.channels = w.channels;
    c.in_h = c.in_w = w.size;
    c.kh = c.kw = w.k;
    c.pt = c.pl = c.pb = c.pr = w.k / 2;
    c.bias = w.channels % 2 == 1;
    ASSERT_TRUE(c.conv_valid());
    ASSERT_EQ(depthwise_takes_blocked(Isa::Avx512, true, c.shape()), kIsX86_64) << c.describe();
    ASSERT_EQ(depthwise_takes_blocked(Isa::Avx2, true, c.shape()), kIsX86_64) << c.describe();
    ASSERT_EQ(check_exact(c, seed++, false), "");
    if (w.k == 7 && w.size < 32) {
      ASSERT_EQ(depthwise_takes_blocked(Isa::Avx512, false, c.shape()), kIsX86_64) << c.describe();
      ASSERT_EQ(check_fast(c, seed++), "");
    }
  }
}

TEST(DepthwiseBlocked, ExactDilationAsymmetricPadsAndSpecialValues) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.ExactDilationAsymmetricPadsAndSpecialValues");
  std::uint32_t seed = 100;
  for (std::size_t dh : {1u, 2u}) {
    for (std::size_t dw : {1u, 3u}) {
      for (std::size_t pads : {0u, 1u, 2u, 5u}) {
        Case c;
        c.batch = 2;
        c.channels = 19;
        c.multiplier = 1 + pads % 2;
        c.in_h = 11;
        c.in_w = 8;
        c.kh = 3;
        c.kw = 2;
        c.sh = 2;
        c.sw = 1 + dw % 2;
        c.dh = dh;
        c.dw = dw;
        c.pt = pads % 3;
        c.pl = pads / 2;
        c.pb = pads;
        c.pr = pads % 2;
        c.bias = true;
        if (!c.conv_valid()) continue;
        ASSERT_EQ(check_exact(c, seed++, true), "");
      }
    }
  }
}

// An infinite weight meeting padding gives NaN: padding taps are real products with +0.
TEST(DepthwiseBlocked, InfiniteWeightMeetsPaddingAsNaN) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  Case c;
  c.channels = 17;
  c.in_h = c.in_w = 4;
  c.kh = c.kw = 3;
  c.pt = c.pl = c.pb = c.pr = 1;
  Data d;
  d.x.assign(17 * 16, 1.0f);
  d.w.assign(17 * 9, 0.0f);
  d.w[16 * 9] = std::numeric_limits<float>::infinity();  // channel 16's top-left tap
  d.b.assign(17, 0.0f);
  for (Isa isa : blocked_paths()) {
    const std::vector<float> y = run_blocked(isa, c, d, true, nullptr);
    EXPECT_EQ(bits(y[16 * 16]), 0x7FC00000u) << isa_name(isa);                        // output (0, 0): padding
    EXPECT_EQ(y[16 * 16 + 5], std::numeric_limits<float>::infinity()) << isa_name(isa);  // output (1, 1): input
    EXPECT_EQ(bits(y[0]), 0u) << isa_name(isa);                                        // channel 0: +0
  }
}

TEST(DepthwiseBlocked, FastWithinBoundAndThreadIndependent) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.FastWithinBoundAndThreadIndependent");
  std::uint32_t seed = 400;
  for (std::size_t k : {3u, 5u, 7u}) {
    for (std::size_t size : {7u, 14u, 20u}) {
      Case c;
      c.channels = 40;
      c.in_h = c.in_w = size;
      c.kh = c.kw = k;
      c.pt = c.pl = c.pb = c.pr = k / 2;
      c.sh = c.sw = 1 + size % 2;
      c.bias = k != 5;
      EXPECT_EQ(check_fast(c, seed++), "");
    }
  }
}

// Fast mode's per-output order (kernels-depthwise.md "What each output is"): +0, one fused
// multiply-add per tap in row-major tap order, the bias one rounded addition afterwards; with
// std::fma (the hardware's fused operation on these paths) the blocked kernel's bits, at 1 and 2
// threads. The shapes take the unrolled square tiles (3x3 and 5x5 at stride 1 and 2: rows of 1
// to 8 outputs and rows of several tiles), the general tile (7x7, 3x5, dilation), whole and
// partial channel blocks, and maps whose interleaving and write-back end in a partial group of
// positions (taken whole, overlapping the group before) or have fewer positions than lanes.
TEST(DepthwiseBlocked, FastIsOneFusedMultiplyAddPerTapInOrder) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.FastIsOneFusedMultiplyAddPerTapInOrder");
  std::uint32_t seed = 600;
  struct Shape {
    std::size_t channels, in_h, in_w, kh, kw, stride, dilation;
  };
  const Shape shapes[] = {{16, 7, 7, 3, 3, 1, 1},   {24, 7, 7, 5, 5, 1, 1},  {17, 14, 14, 5, 5, 2, 1},
                          {8, 14, 14, 3, 3, 2, 1},  {9, 14, 14, 3, 3, 1, 1}, {32, 14, 14, 5, 5, 1, 1},
                          {8, 28, 28, 5, 5, 2, 1},  {40, 28, 28, 3, 3, 2, 1}, {8, 2, 3, 3, 3, 1, 1},
                          {16, 3, 3, 5, 5, 2, 1},   {8, 5, 11, 3, 3, 1, 1},  {8, 9, 17, 5, 5, 2, 1},
                          {16, 7, 7, 7, 7, 1, 1},   {8, 9, 9, 3, 5, 1, 1},   {8, 11, 11, 3, 3, 1, 2},
                          {15, 13, 6, 5, 5, 1, 1}};
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (const Shape& sh : shapes) {
    Case c;
    c.channels = sh.channels;
    c.in_h = sh.in_h;
    c.in_w = sh.in_w;
    c.kh = sh.kh;
    c.kw = sh.kw;
    c.sh = c.sw = sh.stride;
    c.dh = c.dw = sh.dilation;
    c.pt = c.pb = sh.dilation * (sh.kh / 2);
    c.pl = c.pr = sh.dilation * (sh.kw / 2);
    c.bias = sh.channels % 2 == 0;
    ASSERT_TRUE(c.conv_valid()) << c.describe();
    const Data d = random_data(c, seed++, false);
    const std::vector<float> expected = depthwise_test::naive_fused(c, d);
    for (Isa isa : blocked_paths()) {
      for (ThreadPool* pool : {&one, &two}) {
        const std::vector<float> got = run_blocked(isa, c, d, false, pool);
        EXPECT_EQ(conv_test::first_bit_difference(got, expected), "")
            << c.describe() << " isa " << isa_name(isa) << " threads " << pool->threads();
      }
    }
  }
}

// With a fused BatchNormalization, residual and activation (graph-passes.md
// `conv-batchnorm-epilogue`, `conv-residual`, `conv-activation`) the blocked kernel gives the plane
// walk's bits given the same epilogue, exact mode, at 1 and 2 threads.
TEST(DepthwiseBlocked, FusedEpilogueMatchesThePlaneWalk) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.FusedEpilogueMatchesThePlaneWalk");
  Case c;
  c.batch = 2;
  c.channels = 21;
  c.in_h = c.in_w = 7;
  c.kh = c.kw = 5;
  c.pt = c.pl = c.pb = c.pr = 2;
  c.bias = true;
  const Conv2dShape s = c.shape();
  const Data d = random_data(c, 77, true);
  const Data extra = conv_test::random_data(s.batch * s.out_channels * s.out_plane(), s.out_channels,
                                            s.out_channels, 78, true, 6);
  for (bool residual_first : {false, true}) {
    ConvActivation fused;
    fused.norm_scale = extra.w.data();
    fused.norm_shift = extra.b.data();
    fused.residual = extra.x.data();
    fused.residual_first = residual_first;
    fused.args.op = ew::UnaryOp::Relu;
    ThreadPool one(1), two(2, two_threads::kAlways);
    for (Isa isa : blocked_paths()) {
      for (ThreadPool* pool : {&one, &two}) {
        std::vector<float> walk(s.batch * s.out_channels * s.out_plane(), 5.0f);
        const KernelContext context{isa, true, pool};
        depthwise_walk_conv2d_f32(context, s, d.x.data(), d.w.data(), d.b.data(), walk.data(), &fused);
        const std::vector<float> blocked = run_blocked(isa, c, d, true, pool, &fused);
        EXPECT_EQ(conv_test::first_bit_difference(blocked, walk), "")
            << isa_name(isa) << " threads " << pool->threads() << (residual_first ? " residual first" : "");
      }
    }
  }
}

// An activation alone (Relu, Clip, LeakyRelu, HardSwish applied in the AVX2 write-back's stores;
// SiLU left to the separate pass) gives the bits of the kernel without it followed by the
// element-wise kernel's pass over its outputs, exact and fast, at 1 and 2 threads, special values
// among the inputs (NaN and infinities through each activation); whole and partial channel blocks,
// planes of fewer positions than lanes, of a multiple of them and ending in a partial group.
TEST(DepthwiseBlocked, ActivationAloneGivesTheSeparatePassBits) {
  if (blocked_paths().empty()) GTEST_SKIP() << "no AVX2 or AVX-512 on this machine";
  const two_threads::RequireSharedCalls shared_calls("DepthwiseBlocked.ActivationAloneGivesTheSeparatePassBits");
  struct Act {
    ew::UnaryOp op;
    float alpha, beta;
  };
  const Act acts[] = {{ew::UnaryOp::Relu, 0.0f, 0.0f},
                      {ew::UnaryOp::Clip, 0.0f, 6.0f},
                      {ew::UnaryOp::LeakyRelu, 0.1f, 0.0f},
                      {ew::UnaryOp::HardSwish, 0.0f, 0.0f},
                      {ew::UnaryOp::Silu, 0.0f, 0.0f}};
  struct Shape {
    std::size_t channels, size, k, stride;
  };
  const Shape shapes[] = {{16, 7, 5, 1}, {13, 7, 3, 1}, {8, 14, 5, 2}, {21, 4, 3, 1}, {9, 16, 5, 2}};
  std::uint32_t seed = 800;
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (const Shape& sh : shapes) {
    Case c;
    c.channels = sh.channels;
    c.in_h = c.in_w = sh.size;
    c.kh = c.kw = sh.k;
    c.sh = c.sw = sh.stride;
    c.pt = c.pl = c.pb = c.pr = sh.k / 2;
    c.bias = sh.channels % 2 == 1;
    ASSERT_TRUE(c.conv_valid()) << c.describe();
    const Data d = random_data(c, seed++, true);
    for (const Act& a : acts) {
      for (bool exact : {true, false}) {
        const ConvActivation activation = conv_test::store_activation(a.op, a.alpha, a.beta, !exact);
        for (Isa isa : blocked_paths()) {
          std::vector<float> expected = run_blocked(isa, c, d, exact, &one);
          ew::unary_f32_run(isa, activation.args, expected.data(), expected.data(), expected.size());
          for (ThreadPool* pool : {&one, &two}) {
            const std::vector<float> got = run_blocked(isa, c, d, exact, pool, &activation);
            EXPECT_EQ(conv_test::first_bit_difference(got, expected), "")
                << c.describe() << " op " << static_cast<int>(a.op) << (exact ? " exact" : " fast") << " isa "
                << isa_name(isa) << " threads " << pool->threads();
          }
        }
      }
    }
  }
}

#endif  // __x86_64__

// The rule (depthwise_blocked.cpp): AVX-512 and AVX2 alike (every Avx512 expectation below is
// repeated for Avx2) except rows of 9-15 outputs with fewer than 49 taps, which AVX2 takes
// only with at least 25 taps and a column stride of 1 or 2; outputs of at most 8 columns, or narrower
// than 16 unstrided or with at least 49 taps; unstrided 7x7 rows under 32 in fast mode and of any
// width in exact mode; in exact mode unstrided 5x5 rows not a multiple of 16 wide; at most 64 taps.
void expect_rule(bool want, bool exact, const Case& c, int line, bool want_avx2) {
  EXPECT_EQ(depthwise_takes_blocked(Isa::Avx512, exact, c.shape()), want && kIsX86_64) << "line " << line;
  EXPECT_EQ(depthwise_takes_blocked(Isa::Avx2, exact, c.shape()), want_avx2 && kIsX86_64) << "line " << line;
}
void expect_rule(bool want, bool exact, const Case& c, int line) { expect_rule(want, exact, c, line, want); }

TEST(DepthwiseBlocked, SelectionRule) {
  Case c;
  c.channels = 1152;
  c.in_h = c.in_w = 7;
  c.kh = c.kw = 5;
  c.pt = c.pl = c.pb = c.pr = 2;
  for (bool exact : {false, true}) {
    expect_rule(true, exact, c, __LINE__);
    EXPECT_FALSE(depthwise_takes_blocked(Isa::Scalar, exact, c.shape()));
  }
  c.in_h = c.in_w = 14;  // 14 wide, 25 taps, unstrided: blocked
  expect_rule(true, false, c, __LINE__);
  expect_rule(true, true, c, __LINE__);
  c.kh = c.kw = 3;  // 14 wide, 9 taps, unstrided: blocked (AVX2: the walk)
  c.pt = c.pl = c.pb = c.pr = 1;
  expect_rule(true, false, c, __LINE__, false);
  expect_rule(true, true, c, __LINE__, false);
  c.kh = c.kw = 5;
  c.pt = c.pl = c.pb = c.pr = 2;
  c.in_h = c.in_w = 28;  // 14 wide at stride 2, 25 taps: the walk (AVX2: blocked)
  c.sh = c.sw = 2;
  expect_rule(false, false, c, __LINE__, true);
  expect_rule(false, true, c, __LINE__, true);
  c.in_h = c.in_w = 56;  // 28 wide at stride 2, 25 taps: the walk
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
  c.in_h = c.in_w = 42;  // 14 wide at stride 3, 25 taps: the walk
  c.sh = c.sw = 3;
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
  c.sh = c.sw = 1;  // 28 wide, 25 taps, unstrided: the walk in fast mode, blocked in exact mode
  c.channels = 240;
  expect_rule(false, false, c, __LINE__);
  expect_rule(true, true, c, __LINE__);
  c.in_h = c.in_w = 32;  // whole vectors of 16 columns: the walk in both modes
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
  c.in_h = c.in_w = 28;
  c.kh = c.kw = 3;  // 3x3 at 28 wide: the walk in both modes
  c.pt = c.pl = c.pb = c.pr = 1;
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
  c.in_h = c.in_w = 14;
  c.kh = c.kw = 7;  // 14 wide, 49 taps: blocked
  c.pt = c.pl = c.pb = c.pr = 3;
  expect_rule(true, false, c, __LINE__);
  c.in_h = c.in_w = 28;  // 7x7 28 wide: blocked in both modes
  expect_rule(true, false, c, __LINE__);
  expect_rule(true, true, c, __LINE__);
  c.channels = 96;
  c.in_h = c.in_w = 56;  // 7x7 56 wide: the walk in fast mode, blocked in exact mode
  expect_rule(false, false, c, __LINE__);
  expect_rule(true, true, c, __LINE__);
  c.in_h = c.in_w = 112;  // past the block's padded copy: the walk in both modes
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
  c.in_h = c.in_w = 7;
  c.kh = c.kw = 9;  // 81 taps: the walk's fallback loop
  c.pt = c.pl = c.pb = c.pr = 4;
  expect_rule(false, false, c, __LINE__);
  expect_rule(false, true, c, __LINE__);
}

}  // namespace
}  // namespace onemodel::opt
