// The depthwise kernel (optimized/kernels/conv/depthwise.*) against a naive loop written from
// kernels-depthwise.md "What each output is" and exact-mode.md "Convolution": exact mode bit for
// bit on every path this machine has, at 1 and 2 threads; fast mode within the sequential-sum
// bound of kernels-gemm.md "Fast mode" against double precision.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_stride1.hpp"
#include "optimized/kernels/conv/depthwise_stride2.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/conv/depthwise_plane.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> depthwise_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(depthwise_variants());
}

struct Case : conv_test::Window {
  std::size_t batch = 1, channels = 1, multiplier = 1;
  bool bias = false;

  bool valid() const { return conv_valid(); }
  Conv2dShape shape() const { return conv_shape(batch, channels, channels * multiplier, channels); }
  std::string describe() const {
    return "batch " + std::to_string(batch) + " C " + std::to_string(channels) + " mult " + std::to_string(multiplier) +
           " in " + std::to_string(in_h) + "x" + std::to_string(in_w) + " k " + std::to_string(kh) + "x" +
           std::to_string(kw) + " s " + std::to_string(sh) + "," + std::to_string(sw) + " d " + std::to_string(dh) +
           "," + std::to_string(dw) + " pads " + std::to_string(pt) + "," + std::to_string(pl) + "," +
           std::to_string(pb) + "," + std::to_string(pr) + (bias ? " bias" : "");
  }
};

// The definition, literally: +0, taps in row-major order, each product rounded then the sum
// rounded, padding a real +0; bias one rounded addition; NaN stored as 0x7FC00000.
std::vector<float> naive_exact(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                               const std::vector<float>& b) {
  const Conv2dShape s = c.shape();
  std::vector<float> y;
  for (std::size_t n = 0; n < c.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const std::size_t ic = oc / c.multiplier;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          volatile float acc = 0.0f;
          for (std::size_t ky = 0; ky < c.kh; ++ky) {
            for (std::size_t kx = 0; kx < c.kw; ++kx) {
              const long iy = static_cast<long>(oy * c.sh + ky * c.dh) - static_cast<long>(c.pt);
              const long ix = static_cast<long>(ox * c.sw + kx * c.dw) - static_cast<long>(c.pl);
              const bool inside = iy >= 0 && iy < static_cast<long>(c.in_h) && ix >= 0 && ix < static_cast<long>(c.in_w);
              const float v = inside ? x[((n * c.channels + ic) * c.in_h + iy) * c.in_w + ix] : 0.0f;
              volatile float product = w[(oc * c.kh + ky) * c.kw + kx] * v;
              acc = acc + product;
            }
          }
          float out = acc;
          if (c.bias) out = out + b[oc];
          if (std::isnan(out)) out = std::bit_cast<float>(std::uint32_t{0x7FC00000u});
          y.push_back(out);
        }
      }
    }
  }
  return y;
}

// The same sum in double, and sum |w*x| for the bound.
void naive_double(const Case& c, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                  std::vector<double>& value, std::vector<double>& magnitude) {
  const Conv2dShape s = c.shape();
  for (std::size_t n = 0; n < c.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const std::size_t ic = oc / c.multiplier;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          double acc = 0.0, mag = 0.0;
          for (std::size_t ky = 0; ky < c.kh; ++ky) {
            for (std::size_t kx = 0; kx < c.kw; ++kx) {
              const long iy = static_cast<long>(oy * c.sh + ky * c.dh) - static_cast<long>(c.pt);
              const long ix = static_cast<long>(ox * c.sw + kx * c.dw) - static_cast<long>(c.pl);
              const bool inside = iy >= 0 && iy < static_cast<long>(c.in_h) && ix >= 0 && ix < static_cast<long>(c.in_w);
              const double v = inside ? x[((n * c.channels + ic) * c.in_h + iy) * c.in_w + ix] : 0.0;
              const double p = static_cast<double>(w[(oc * c.kh + ky) * c.kw + kx]) * v;
              acc += p;
              mag += std::fabs(p);
            }
          }
          if (c.bias) {
            acc += b[oc];
            mag += std::fabs(static_cast<double>(b[oc]));
          }
          value.push_back(acc);
          magnitude.push_back(mag);
        }
      }
    }
  }
}

Data random_data(const Case& c, std::uint32_t seed, bool special) {
  return conv_test::random_data(c.batch * c.channels * c.in_h * c.in_w, c.channels * c.multiplier * c.kh * c.kw,
                                c.channels * c.multiplier, seed, special, 6);
}

std::vector<float> run_kernel(const Case& c, const Data& d, Isa isa, bool exact, ThreadPool* pool) {
  const Conv2dShape s = c.shape();
  std::vector<float> y(c.batch * s.out_channels * s.out_plane(), 12345.0f);
  const KernelContext context{isa, exact, pool};
  depthwise_conv2d_f32(context, s, d.x.data(), d.w.data(), c.bias ? d.b.data() : nullptr, y.data());
  return y;
}

// Exact bits against the naive loop on every path at 1 and 2 threads; "" when equal.
std::string check_exact(const Case& c, std::uint32_t seed, bool special) {
  const Data d = random_data(c, seed, special);
  const std::vector<float> expected = naive_exact(c, d.x, d.w, d.b);
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  for (Isa isa : depthwise_variant_paths()) {
    for (ThreadPool* pool : {&one, &two}) {
      const std::string difference = conv_test::first_bit_difference(run_kernel(c, d, isa, true, pool), expected);
      if (!difference.empty()) {
        return c.describe() + " isa " + std::string(isa_name(isa)) + " threads " + std::to_string(pool->threads()) +
               difference;
      }
    }
  }
  return "";
}

// kernels-gemm.md "Fast mode": |y - exact| <= k*u*sum|w*x| + 1e-30, k the number of terms
// (taps, plus one for the bias).
std::string check_fast(const Case& c, std::uint32_t seed) {
  const Data d = random_data(c, seed, false);
  std::vector<double> value, magnitude;
  naive_double(c, d.x, d.w, d.b, value, magnitude);
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>(c.kh * c.kw + (c.bias ? 1 : 0));
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  for (Isa isa : depthwise_variant_paths()) {
    const std::vector<float> first = run_kernel(c, d, isa, false, &one);
    const std::vector<float> second = run_kernel(c, d, isa, false, &two);
    for (std::size_t i = 0; i < value.size(); ++i) {
      const double bound = terms * u * magnitude[i] + 1e-30;
      if (!(std::fabs(first[i] - value[i]) <= bound)) {
        return c.describe() + " fast isa " + std::string(isa_name(isa)) + " element " + std::to_string(i);
      }
      if (bits(first[i]) != bits(second[i])) return c.describe() + " fast differs between 1 and 2 threads";
    }
  }
  return "";
}

TEST(Depthwise, ChunkSizeIsAConstantOfTheShape) {
  Conv2dShape s;
  s.out_h = 112;
  s.out_w = 112;
  EXPECT_EQ(depthwise_planes_per_chunk(s), 1u);
  s.out_h = s.out_w = 14;  // 4096 / 196 = 20
  EXPECT_EQ(depthwise_planes_per_chunk(s), 20u);
  s.out_h = s.out_w = 7;  // 4096 / 49 = 83 -> 32
  EXPECT_EQ(depthwise_planes_per_chunk(s), 32u);
}

TEST(Depthwise, FallbackSelection) {
  Conv2dShape s;
  s.kernel_h = s.kernel_w = 8;
  EXPECT_FALSE(depthwise_uses_fallback(s));
  s.kernel_w = 9;
  EXPECT_TRUE(depthwise_uses_fallback(s));
  s.kernel_w = 3;
  s.stride_w = 8;
  EXPECT_FALSE(depthwise_uses_fallback(s));
  s.stride_w = 9;
  EXPECT_TRUE(depthwise_uses_fallback(s));
}

// Every output width 1..40 (lane choice, four-vector rows, moved-back last vector, narrow
// four-row form) with the usual kernels, strides and pads.
// Not a thread test: its cases have few planes, one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, ExactSweepOfWidthsKernelsStrides) {
  std::uint32_t seed = 1;
  for (std::size_t k : {1u, 3u, 5u}) {
    for (std::size_t stride : {1u, 2u, 3u}) {
      for (std::size_t pad : {0u, 1u, 2u}) {
        for (std::size_t in_w = 1; in_w <= 40; in_w += (in_w < 20 ? 1 : 7)) {
          Case c;
          c.channels = 3;
          c.multiplier = (in_w % 3 == 0) ? 2 : 1;
          c.in_h = 9;
          c.in_w = in_w;
          c.kh = c.kw = k;
          c.sh = c.sw = stride;
          c.pt = c.pl = c.pb = c.pr = pad;
          c.bias = (in_w % 2) == 0;
          if (!c.valid()) continue;
          const std::string failure = check_exact(c, seed++, false);
          ASSERT_EQ(failure, "");
        }
      }
    }
  }
}

// Rows wider than four AVX-512 vectors (64 columns): blocks of four vectors per row, then the
// leftover columns across groups of four rows (depthwise_lanes.hpp plane()), with row counts that
// leave one to three rows to the single-row loop; MobileNet and EfficientNet maps of 112 columns.
TEST(Depthwise, ExactWideRowsBlocksAndLeftoverColumns) {
  std::uint32_t seed = 900;
  for (std::size_t in_w : {64u, 65u, 79u, 112u, 130u}) {
    for (std::size_t k : {3u, 5u}) {
      for (std::size_t stride : {1u, 2u}) {
        Case c;
        c.channels = 2;
        c.in_h = 6 + in_w % 4;
        c.in_w = in_w;
        c.kh = c.kw = k;
        c.sh = c.sw = stride;
        c.pt = c.pl = c.pb = c.pr = k / 2;
        c.bias = (in_w % 2) == 0;
        if (!c.valid()) continue;
        ASSERT_EQ(check_exact(c, seed++, false), "");
        ASSERT_EQ(check_fast(c, seed++), "");
      }
    }
  }
}

// Not a thread test: its cases have few planes, one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, ExactDilationAsymmetricPadsAndInPlaceReads) {
  std::uint32_t seed = 100;
  for (std::size_t dh : {1u, 2u}) {
    for (std::size_t dw : {1u, 2u, 3u}) {
      for (std::size_t pads : {0u, 1u, 2u, 3u}) {
        Case c;
        c.batch = 2;
        c.channels = 2;
        c.multiplier = 3;
        c.in_h = 11;
        c.in_w = 23;
        c.kh = 3;
        c.kw = 2;
        c.sh = 2;
        c.sw = 1;
        c.dh = dh;
        c.dw = dw;
        c.pt = pads % 2;
        c.pl = 0;
        c.pb = pads;
        c.pr = pads / 2;
        c.bias = true;
        ASSERT_EQ(check_exact(c, seed++, false), "");
      }
    }
  }
}

// Not a thread test: its cases have few planes, one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, ExactFallbackShapes) {
  Case big_kernel;  // 9x9 = 81 taps > 64
  big_kernel.channels = 2;
  big_kernel.in_h = 12;
  big_kernel.in_w = 13;
  big_kernel.kh = big_kernel.kw = 9;
  big_kernel.pt = big_kernel.pl = big_kernel.pb = big_kernel.pr = 4;
  big_kernel.bias = true;
  EXPECT_EQ(check_exact(big_kernel, 7, true), "");
  Case wide_stride;  // column stride 9 > 8
  wide_stride.channels = 3;
  wide_stride.in_h = 10;
  wide_stride.in_w = 40;
  wide_stride.kh = wide_stride.kw = 3;
  wide_stride.sw = 9;
  wide_stride.pl = 1;
  EXPECT_EQ(check_exact(wide_stride, 8, true), "");
}

// NaN (either sign), infinities, signed zeros, subnormals, huge values, in inputs, weights and
// bias: canonical NaN, infinite weights meeting padding give NaN.
// Not a thread test: its cases have few planes, one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, ExactSpecialValues) {
  std::uint32_t seed = 200;
  for (std::size_t in_w : {2u, 5u, 8u, 13u, 33u}) {
    for (std::size_t stride : {1u, 2u}) {
      Case c;
      c.channels = 4;
      c.multiplier = 1 + in_w % 2;
      c.in_h = 7;
      c.in_w = in_w;
      c.kh = c.kw = 3;
      c.sh = c.sw = stride;
      c.pt = c.pl = c.pb = c.pr = 1;
      c.bias = true;
      EXPECT_EQ(check_exact(c, seed++, true), "");
    }
  }
}

// A 3x3 depthwise convolution at `stride` with padding 1 on every side, with bias.
Case square_three(std::size_t channels, std::size_t in_h, std::size_t in_w, std::size_t stride) {
  Case c;
  c.channels = channels;
  c.in_h = in_h;
  c.in_w = in_w;
  c.kh = c.kw = 3;
  c.sh = c.sw = stride;
  c.pt = c.pl = c.pb = c.pr = 1;
  c.bias = true;
  return c;
}

// Three channels of an in_h x in_w input under a kh x kw window at `stride` with the given pads;
// a batch of 2 for odd widths and a multiplier of 2 for widths divisible by 3, so the in-place
// kernels' tests vary both without a table column each.
Case windowed(std::size_t in_h, std::size_t in_w, std::size_t kh, std::size_t kw, std::size_t stride, std::size_t pt,
              std::size_t pl, std::size_t pb, std::size_t pr, bool bias) {
  Case c;
  c.batch = 1 + in_w % 2;
  c.channels = 3;
  c.multiplier = in_w % 3 == 0 ? 2 : 1;
  c.in_h = in_h;
  c.in_w = in_w;
  c.kh = kh;
  c.kw = kw;
  c.sh = c.sw = stride;
  c.pt = pt;
  c.pl = pl;
  c.pb = pb;
  c.pr = pr;
  c.bias = bias;
  return c;
}

// Exact bits on ordinary data, exact bits with special values, the fast bound: three seeds.
void expect_exact_and_fast(const Case& c, std::uint32_t& seed) {
  EXPECT_EQ(check_exact(c, seed++, false), "");
  EXPECT_EQ(check_exact(c, seed++, true), "");
  EXPECT_EQ(check_fast(c, seed++), "");
}

// Stride 2 with 3- and 5-wide windows and rows of 9 or more outputs: on AVX-512 the planes are
// read in place (depthwise_stride2.hpp; depthwise_takes_stride2 below). Symmetric pads, the
// asymmetric "same" padding of TensorFlow exports (0 before, 1 after), padding as wide as the
// window allows, 3-, 5- and 7-row windows, a multiplier and a batch, special values in inputs,
// weights and bias, exact bits and the fast bound; one large case split between two threads.
TEST(Depthwise, StrideTwoInPlaceExactAndFast) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Depthwise.StrideTwoInPlaceExactAndFast");
  struct Shape2 {
    std::size_t in_w, kh, kw, pt, pl, pb, pr;
  };
  std::uint32_t seed = 1300;
  // On AVX2 the kernel keeps rows under 28 outputs of windows that are not square (41: 5x3) or
  // with a channel multiplier (27 and 33, multiplier 2).
  for (const Shape2& g : {Shape2{19, 3, 3, 1, 1, 1, 1}, Shape2{27, 5, 5, 2, 2, 2, 2}, Shape2{31, 3, 3, 1, 1, 1, 1}, Shape2{32, 3, 3, 0, 0, 1, 1}, Shape2{33, 3, 3, 2, 2, 0, 0},
                          Shape2{41, 5, 3, 2, 1, 2, 1},
                          Shape2{47, 5, 5, 2, 2, 2, 2}, Shape2{64, 5, 5, 1, 1, 2, 2}, Shape2{80, 7, 3, 3, 1, 3, 1},
                          Shape2{97, 3, 5, 1, 4, 1, 4}, Shape2{112, 3, 3, 1, 1, 1, 1}}) {
    const Case c = windowed(9 + g.in_w % 4, g.in_w, g.kh, g.kw, 2, g.pt, g.pl, g.pb, g.pr, g.in_w % 2 == 1);
    ASSERT_TRUE(c.valid()) << c.describe();
#if defined(__x86_64__)
    EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx512, c.shape())) << c.describe();
    EXPECT_EQ(depthwise_takes_stride2(Isa::Avx2, c.shape()),
              c.shape().out_w < 28 && (c.kh != c.kw || c.multiplier > 1))
        << c.describe();
#endif
    expect_exact_and_fast(c, seed);
  }
  // The cases above fit one chunk each; this one (64 planes of 56 x 20 outputs) is split between
  // the two threads, as RequireSharedCalls checks.
  const Case large = square_three(64, 40, 112, 2);
  EXPECT_EQ(check_exact(large, seed++, true), "");
  EXPECT_EQ(check_fast(large, seed++), "");
}

TEST(Depthwise, StrideTwoSelection) {
  Case c = square_three(2, 9, 40, 2);
  c.bias = false;
  c.multiplier = 2;  // on AVX2 the in-place kernel serves rows under 28 with a multiplier
#if defined(__x86_64__)
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx512, c.shape()));
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx2, c.shape()));  // the eight-lane instantiation
  Case single = c;
  single.multiplier = 1;  // square, one filter a channel: on AVX2 the split walk's band kernel
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx512, single.shape()));
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx2, single.shape()));
  EXPECT_TRUE(depthwise_walk_takes_band_kernel(Isa::Avx2, single.shape()));
  Case tall = single;
  tall.kh = 5;  // 5x3: on AVX2 the in-place kernel
  tall.pt = tall.pb = 2;
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx2, tall.shape()));
#else
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx512, c.shape()));  // x86-64 only
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx2, c.shape()));
#endif
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Sse, c.shape()));  // other paths keep the walk
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Scalar, c.shape()));
  Case wide = c;
  wide.in_w = 55;  // 28 outputs a row: on AVX2 the walk's
#if defined(__x86_64__)
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx512, wide.shape()));
#endif
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx2, wide.shape()));
  wide.in_w = 53;  // 27 outputs
#if defined(__x86_64__)
  EXPECT_TRUE(depthwise_takes_stride2(Isa::Avx2, wide.shape()));
#endif
  Case narrow = c;
  narrow.in_w = 15;  // 8 outputs a row: the channel-blocked kernel's
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx512, narrow.shape()));
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx2, narrow.shape()));
  Case stride1 = c;
  stride1.sh = stride1.sw = 1;
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx512, stride1.shape()));
  Case dilated = c;
  dilated.dw = 2;
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx512, dilated.shape()));
  Case seven = c;
  seven.kw = 7;
  seven.pl = seven.pr = 3;
  EXPECT_FALSE(depthwise_takes_stride2(Isa::Avx512, seven.shape()));
}

// Stride 1 with square 3x3 windows and rows of 64 or more outputs, 7x7 windows and rows of 16 or
// more: on AVX-512 the planes are read in place (depthwise_stride1.hpp; depthwise_takes_stride1
// below). Rows of exactly 16 and 64 outputs, one past, vector pairs and more, the last vector
// moved back; heights below, at and past
// the four-row tile; symmetric pads, TensorFlow's "same" padding (0 before, 1 after), pads as wide
// as the window allows, none; a multiplier and a batch; special values in inputs, weights and bias,
// exact bits and the fast bound; one large case split between two threads.
TEST(Depthwise, StrideOneInPlaceExactAndFast) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Depthwise.StrideOneInPlaceExactAndFast");
  struct Shape1 {
    std::size_t in_h, in_w, k, pt, pl, pb, pr;
  };
  std::uint32_t seed = 1700;
  for (const Shape1& g : {Shape1{1, 64, 3, 1, 1, 1, 1}, Shape1{3, 66, 3, 0, 0, 0, 0}, Shape1{4, 65, 3, 1, 1, 1, 1},
                          Shape1{5, 79, 3, 0, 0, 1, 1}, Shape1{9, 81, 3, 2, 2, 2, 2}, Shape1{6, 95, 3, 1, 2, 1, 0},
                          Shape1{11, 97, 3, 1, 1, 1, 1}, Shape1{8, 112, 3, 1, 1, 1, 1}, Shape1{7, 22, 7, 3, 3, 3, 3},
                          Shape1{5, 16, 7, 3, 3, 3, 3}, Shape1{9, 23, 7, 0, 0, 0, 0},
                          Shape1{2, 28, 7, 3, 3, 3, 3}, Shape1{10, 40, 7, 6, 6, 0, 0}, Shape1{13, 56, 7, 3, 1, 3, 5}}) {
    const Case c = windowed(g.in_h, g.in_w, g.k, g.k, 1, g.pt, g.pl, g.pb, g.pr, g.in_w % 2 == 0);
    ASSERT_TRUE(c.valid()) << c.describe();
#if defined(__x86_64__)
    EXPECT_TRUE(depthwise_takes_stride1(Isa::Avx512, c.shape())) << c.describe();
    EXPECT_TRUE(depthwise_takes_stride1(Isa::Avx2, c.shape())) << c.describe();
#endif
    expect_exact_and_fast(c, seed);
  }
  // The cases above fit one chunk each; this one (64 planes of 40 x 112 outputs) is split between
  // the two threads, as RequireSharedCalls checks.
  const Case large = square_three(64, 40, 112, 1);
  EXPECT_EQ(check_exact(large, seed++, true), "");
  EXPECT_EQ(check_fast(large, seed++), "");
}

TEST(Depthwise, StrideOneSelection) {
  Case c = square_three(2, 9, 64, 1);
  c.bias = false;
#if defined(__x86_64__)
  EXPECT_TRUE(depthwise_takes_stride1(Isa::Avx512, c.shape()));
  EXPECT_TRUE(depthwise_takes_stride1(Isa::Avx2, c.shape()));  // the eight-lane instantiation
#else
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, c.shape()));  // x86-64 only
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx2, c.shape()));
#endif
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Sse, c.shape()));  // other paths keep the walk
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Scalar, c.shape()));
  Case narrow = c;
  narrow.in_w = 63;  // 3x3 rows of 63 outputs: the walk's
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, narrow.shape()));
  Case seven = c;
  seven.in_w = 16;
  seven.kh = seven.kw = 7;
  seven.pt = seven.pl = seven.pb = seven.pr = 3;
#if defined(__x86_64__)
  EXPECT_TRUE(depthwise_takes_stride1(Isa::Avx512, seven.shape()));
#endif
  seven.in_w = 15;  // 7x7 rows of 15 outputs: the channel-blocked kernel's
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, seven.shape()));
  Case strided = c;
  strided.sh = strided.sw = 2;
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, strided.shape()));
  Case dilated = c;
  dilated.dw = dilated.dh = 2;
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, dilated.shape()));
  Case five = c;  // 5x5 keeps the walk (depthwise_stride1.cpp)
  five.kh = five.kw = 5;
  five.pt = five.pl = five.pb = five.pr = 2;
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, five.shape()));
  Case tall = c;  // not square
  tall.kh = 7;
  tall.pt = tall.pb = 3;
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, tall.shape()));
  Case wide_pad = c;  // left padding as wide as the window
  wide_pad.pl = 3;
  EXPECT_FALSE(depthwise_takes_stride1(Isa::Avx512, wide_pad.shape()));
}

// The in-place kernels on every row width their rules give them around the lane counts (8 on
// AVX2, 16 on AVX-512): stride 2 rows of 9-40 outputs (3x3 and 5x5; AVX2 takes those under 28), unstrided 7x7 rows of 16-40
// and 3x3 rows of 64-81; no padding, symmetric, left only, right only (TensorFlow's "same"), and
// as wide as the window allows; exact bits with ordinary and special values at 1 and 2 threads on
// every path (the fast bits: depthwise_mutation_test.cpp).
// Fast mode on a path with a fused multiply-add, literally: +0, one fused multiply-add per tap in
// row-major order, the bias one rounded addition afterwards. (Data without NaN: std::fma may come
// from the library, whose NaN payloads are its own.)
std::vector<float> naive_fused(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                               const std::vector<float>& b) {
  const Conv2dShape s = c.shape();
  std::vector<float> y;
  for (std::size_t n = 0; n < c.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const std::size_t ic = oc / c.multiplier;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          float acc = 0.0f;
          for (std::size_t ky = 0; ky < c.kh; ++ky) {
            for (std::size_t kx = 0; kx < c.kw; ++kx) {
              const long iy = static_cast<long>(oy * c.sh + ky * c.dh) - static_cast<long>(c.pt);
              const long ix = static_cast<long>(ox * c.sw + kx * c.dw) - static_cast<long>(c.pl);
              const bool inside = iy >= 0 && iy < static_cast<long>(c.in_h) && ix >= 0 && ix < static_cast<long>(c.in_w);
              const float v = inside ? x[((n * c.channels + ic) * c.in_h + iy) * c.in_w + ix] : 0.0f;
              acc = std::fma(w[(oc * c.kh + ky) * c.kw + kx], v, acc);
            }
          }
          volatile float out = acc;
          if (c.bias) out = out + b[oc];
          y.push_back(static_cast<float>(out));
        }
      }
    }
  }
  return y;
}

// The AVX2 walk run directly (at column stride 2 with its phase planes split by bands,
// depthwise.cpp walk_split_bands; for square 3x3 and 5x5 windows the band kernel,
// depthwise_band.hpp): exact bits against naive_exact
// (ordinary and special values) and fast bits against naive_fused, at 1 and 2 threads; "" when
// equal or when the machine has no AVX2.
std::string check_split_walk(const Case& c, std::uint32_t seed) {
  bool has_avx2 = false;
  for (Isa isa : depthwise_variant_paths()) has_avx2 = has_avx2 || isa == Isa::Avx2;
  if (!has_avx2) return "";
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  const Conv2dShape s = c.shape();
  for (int round = 0; round < 3; ++round) {
    const bool exact = round < 2;
    const Data d = random_data(c, seed + static_cast<std::uint32_t>(round), round == 1);
    const std::vector<float> expected = exact ? naive_exact(c, d.x, d.w, d.b) : naive_fused(c, d.x, d.w, d.b);
    for (ThreadPool* pool : {&one, &two}) {
      std::vector<float> y(c.batch * s.out_channels * s.out_plane(), 12345.0f);
      depthwise_walk_conv2d_f32(KernelContext{Isa::Avx2, exact, pool}, s, d.x.data(), d.w.data(),
                                c.bias ? d.b.data() : nullptr, y.data());
      const std::string difference = conv_test::first_bit_difference(y, expected);
      if (!difference.empty()) {
        return c.describe() + (exact ? " exact" : " fast") + (round == 1 ? " special" : "") + " threads " +
               std::to_string(pool->threads()) + difference;
      }
    }
  }
  return "";
}

// Column stride 2 on the AVX2 walk: rows of 28 or more outputs of 3x3 and 5x5 windows (the
// in-place kernel takes 9-27) and any row of other windows; since session 37 also square 3x3 and
// 5x5 rows of 9-27 outputs (28, 27, 24, 19 and 54 wide inputs: 14, 14, 12, 10 and 27 outputs, 14 or
// 16 rows: the band kernel's four-row tile moved back). Input widths whose even and odd column
// counts end on, before and after the split's eight-column steps (55-65, 113, 150, 200), fall
// between one and two steps (19, 30, 33) or short of one (13); pads 0-3
// on the left (each phase's first column 0, 1 or 2) and top, pads after the input or none; whole
// phase planes (up to 24 KB) and bands of eight output rows with a short last band, padding rows
// at either end; row strides 1, 2 and 3; 7x7, 2x2 and 1x1 windows, column dilation 2 (one phase
// read); batches of 1 and 2; one large case split between two threads.
TEST(Depthwise, StrideTwoSplitBandsExactAndFast) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Depthwise.StrideTwoSplitBandsExactAndFast");
  struct G {
    std::size_t in_h, in_w, kh, kw, sh, dw, pt, pl, pb, pr;
  };
  std::uint32_t seed = 4100;
  std::vector<Case> cases;
  for (const G& g : {G{20, 55, 3, 3, 2, 1, 1, 1, 1, 1}, G{17, 56, 3, 3, 2, 1, 1, 1, 1, 1},
                     G{16, 57, 5, 5, 2, 1, 2, 2, 2, 2}, G{33, 64, 3, 3, 2, 1, 0, 0, 1, 1},
                     G{35, 65, 5, 5, 2, 1, 2, 2, 2, 2}, G{40, 71, 5, 5, 2, 1, 1, 1, 2, 2},
                     G{18, 80, 3, 3, 2, 1, 2, 3, 0, 0}, G{100, 64, 3, 3, 2, 1, 1, 1, 1, 1},
                     G{37, 200, 3, 3, 2, 1, 1, 1, 1, 1}, G{50, 150, 5, 5, 2, 1, 2, 2, 2, 2},
                     G{45, 180, 5, 5, 2, 1, 3, 2, 3, 1}, G{36, 113, 3, 3, 2, 1, 1, 1, 1, 1},
                     G{21, 60, 3, 3, 1, 1, 1, 1, 1, 1}, G{90, 62, 3, 3, 3, 1, 1, 1, 1, 1},
                     G{30, 40, 7, 7, 2, 1, 3, 3, 3, 3}, G{24, 30, 3, 3, 2, 2, 2, 2, 2, 2},
                     G{26, 33, 2, 2, 2, 1, 0, 0, 0, 0}, G{20, 19, 1, 1, 2, 1, 0, 0, 0, 0},
                     G{15, 13, 7, 7, 2, 1, 3, 3, 3, 3}, G{28, 28, 3, 3, 2, 1, 1, 1, 1, 1},
                     G{27, 27, 5, 5, 2, 1, 2, 2, 2, 2}, G{32, 24, 3, 3, 2, 1, 1, 1, 1, 1},
                     G{28, 19, 5, 5, 2, 1, 2, 2, 2, 2}, G{31, 54, 3, 3, 2, 1, 0, 0, 1, 1}}) {
    Case c;
    c.batch = 1 + g.in_w % 2;
    c.channels = 3;
    c.in_h = g.in_h;
    c.in_w = g.in_w;
    c.kh = g.kh;
    c.kw = g.kw;
    c.sh = g.sh;
    c.sw = 2;
    c.dw = g.dw;
    c.pt = g.pt;
    c.pl = g.pl;
    c.pb = g.pb;
    c.pr = g.pr;
    c.bias = g.in_h % 2 == 0;
    cases.push_back(c);
  }
  Case large = square_three(40, 60, 112, 2);  // 40 planes of 30 x 56 outputs: 20 chunks
  cases.push_back(large);
  for (const Case& c : cases) {
    ASSERT_TRUE(c.valid()) << c.describe();
#if defined(__x86_64__)
    EXPECT_TRUE(depthwise_walk_splits_bands(Isa::Avx2, c.shape())) << c.describe();
#endif
    EXPECT_EQ(check_split_walk(c, seed), "");
    seed += 3;
    EXPECT_EQ(check_exact(c, seed++, false), "");  // every path, whichever kernel takes the shape
  }
  // Not split: a channel multiplier (the split would repeat per filter), other column strides,
  // other paths, and shapes the in-place kernels take.
  Case multiplied = cases[0];
  multiplied.multiplier = 2;
  EXPECT_FALSE(depthwise_walk_splits_bands(Isa::Avx2, multiplied.shape()));
  EXPECT_EQ(check_exact(multiplied, seed++, false), "");
  Case stride3 = cases[0];
  stride3.sw = 3;
  EXPECT_FALSE(depthwise_walk_splits_bands(Isa::Avx2, stride3.shape()));
  EXPECT_FALSE(depthwise_walk_splits_bands(Isa::Sse, cases[0].shape()));
  EXPECT_FALSE(depthwise_walk_splits_bands(Isa::Avx512, cases[0].shape()));  // the in-place kernel's
  Case multiplied20 = square_three(2, 20, 40, 2);  // 20 wide with a multiplier: the in-place kernel's
  multiplied20.multiplier = 2;
  EXPECT_FALSE(depthwise_walk_splits_bands(Isa::Avx2, multiplied20.shape()));
}

// Unstrided square 3x3 and 5x5 windows on the AVX2 walk take the band kernel over the padded
// plane (depthwise_walk_takes_band_kernel; 3x3 rows of 64 or more take the in-place kernel first).
// Rows of 8 outputs (one vector), 13-17 (a vector moved back), 16, 22, 40 and 63 (pairs and a
// single vector), 100; heights below, at and past the four-row tile (7, 9, 14 and 30 rows end
// with a four-row tile moved back over rows already computed); no padding (the input plane
// read in place), symmetric, TensorFlow's "same" (0 before, 1 after) and asymmetric pads; a
// multiplier, a batch; exact bits (ordinary and special values) and fast bits against the naive
// loops at 1 and 2 threads; one large case split between two threads.
TEST(Depthwise, UnstridedBandKernelExactAndFast) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Depthwise.UnstridedBandKernelExactAndFast");
  struct G {
    std::size_t in_h, in_w, k, pt, pl, pb, pr;
  };
  std::uint32_t seed = 4700;
  std::vector<Case> cases;
  for (const G& g : {G{9, 10, 3, 0, 0, 0, 0}, G{12, 13, 3, 1, 1, 1, 1}, G{20, 16, 3, 1, 1, 1, 1},
                     G{17, 23, 3, 0, 0, 1, 1}, G{14, 14, 3, 1, 1, 1, 1}, G{30, 63, 3, 1, 1, 1, 1},
                     G{9, 40, 5, 2, 2, 2, 2}, G{14, 14, 5, 2, 2, 2, 2}, G{28, 28, 5, 2, 2, 2, 2},
                     G{11, 12, 5, 0, 0, 0, 0}, G{20, 100, 5, 2, 2, 2, 2}, G{7, 17, 5, 1, 3, 3, 1}}) {
    Case c;
    c.batch = 1 + g.in_w % 2;
    c.channels = 3;
    c.multiplier = g.in_w % 3 == 0 ? 2 : 1;
    c.in_h = g.in_h;
    c.in_w = g.in_w;
    c.kh = c.kw = g.k;
    c.pt = g.pt;
    c.pl = g.pl;
    c.pb = g.pb;
    c.pr = g.pr;
    c.bias = g.in_h % 2 == 1;
    cases.push_back(c);
  }
  cases.push_back(square_three(64, 56, 56, 1));  // 64 planes of 56 x 56: one a chunk
  for (const Case& c : cases) {
    ASSERT_TRUE(c.valid()) << c.describe();
#if defined(__x86_64__)
    EXPECT_TRUE(depthwise_walk_takes_band_kernel(Isa::Avx2, c.shape())) << c.describe();
#endif
    EXPECT_EQ(check_split_walk(c, seed), "");
    seed += 3;
    EXPECT_EQ(check_exact(c, seed++, false), "");
  }
  // Not the band kernel: other paths, 3x3 rows the in-place kernel takes, 7x7, dilation, stride 3.
  EXPECT_FALSE(depthwise_walk_takes_band_kernel(Isa::Sse, cases[1].shape()));
  EXPECT_FALSE(depthwise_walk_takes_band_kernel(Isa::Avx2, square_three(2, 20, 70, 1).shape()));
  Case other = cases[1];
  other.kh = other.kw = 7;
  other.pt = other.pl = other.pb = other.pr = 3;
  EXPECT_FALSE(depthwise_walk_takes_band_kernel(Isa::Avx2, other.shape()));
  other = cases[1];
  other.dw = 2;
  EXPECT_FALSE(depthwise_walk_takes_band_kernel(Isa::Avx2, other.shape()));
  other = cases[1];
  other.sh = other.sw = 3;
  EXPECT_FALSE(depthwise_walk_takes_band_kernel(Isa::Avx2, other.shape()));
}

// An activation alone on the AVX2 walk: the band kernel applies Relu, Clip, LeakyRelu and
// HardSwish in its stores (depthwise.cpp band_fused_activation; SiLU and the other kernels leave it
// to the separate pass), with the bits of the walk without it followed by the element-wise
// kernel's pass: exact and fast, special values among the inputs, 1 and 2 threads; split bands at
// stride 2 (3x3 over bands of eight rows, 5x5 over a whole plane), the unstrided band kernel, and
// a 7x7 window the generic walk takes.
TEST(Depthwise, BandActivationAloneGivesTheSeparatePassBits) {
  bool has_avx2 = false;
  for (Isa isa : depthwise_variant_paths()) has_avx2 = has_avx2 || isa == Isa::Avx2;
  if (!has_avx2) GTEST_SKIP() << "no AVX2 on this machine";
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls(
      "Depthwise.BandActivationAloneGivesTheSeparatePassBits");
  struct Act {
    ew::UnaryOp op;
    float alpha, beta;
  };
  const Act acts[] = {{ew::UnaryOp::Relu, 0.0f, 0.0f},
                      {ew::UnaryOp::Clip, -0.5f, 6.0f},
                      {ew::UnaryOp::LeakyRelu, 0.1f, 0.0f},
                      {ew::UnaryOp::HardSwish, 0.0f, 0.0f},
                      {ew::UnaryOp::Silu, 0.0f, 0.0f}};
  // 40 planes of 30 x 56 outputs (20 chunks) and 64 of 14 x 14 (3 chunks): split between two threads.
  std::vector<Case> cases = {square_three(5, 40, 60, 2), square_three(3, 14, 14, 1), square_three(4, 13, 30, 1),
                             square_three(40, 60, 112, 2), square_three(64, 14, 14, 1)};
  Case five = square_three(3, 28, 57, 2);
  five.kh = five.kw = 5;
  five.pt = five.pl = five.pb = five.pr = 2;
  cases.push_back(five);
  Case seven = square_three(3, 30, 64, 2);
  seven.kh = seven.kw = 7;
  seven.pt = seven.pl = seven.pb = seven.pr = 3;
  cases.push_back(seven);
  std::uint32_t seed = 5300;
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  for (const Case& c : cases) {
    ASSERT_TRUE(c.valid()) << c.describe();
    const Conv2dShape s = c.shape();
#if defined(__x86_64__)
    EXPECT_EQ(depthwise_walk_takes_band_kernel(Isa::Avx2, s), c.kh != 7) << c.describe();
#endif
    const Data d = random_data(c, seed++, true);
    for (const Act& a : acts) {
      for (bool exact : {true, false}) {
        const ConvActivation activation = conv_test::store_activation(a.op, a.alpha, a.beta, !exact);
        std::vector<float> expected(c.batch * s.out_channels * s.out_plane(), 12345.0f);
        depthwise_walk_conv2d_f32(KernelContext{Isa::Avx2, exact, &one}, s, d.x.data(), d.w.data(), d.b.data(),
                                  expected.data());
        ew::unary_f32_run(Isa::Avx2, activation.args, expected.data(), expected.data(), expected.size());
        for (ThreadPool* pool : {&one, &two}) {
          std::vector<float> y(expected.size(), 12345.0f);
          depthwise_walk_conv2d_f32(KernelContext{Isa::Avx2, exact, pool}, s, d.x.data(), d.w.data(), d.b.data(),
                                    y.data(), &activation);
          EXPECT_EQ(conv_test::first_bit_difference(y, expected), "")
              << c.describe() << " op " << static_cast<int>(a.op) << (exact ? " exact" : " fast") << " threads "
              << pool->threads();
        }
      }
    }
  }
}

TEST(Depthwise, InPlaceRowWidthsAroundTheLanes) {
  struct Pads {
    std::size_t pl, pr;
  };
  std::uint32_t seed = 2100;
  for (std::size_t k : {3u, 5u}) {
    for (std::size_t out_w = 9; out_w <= 40; ++out_w) {
      const Pads pads[] = {{0, 0}, {k / 2, k / 2}, {k - 1, 0}, {0, 1}};
      const Pads& p = pads[out_w % 4];
      // out_w = (in_w + pl + pr - k) / 2 + 1
      const std::size_t in_w = 2 * (out_w - 1) + k - p.pl - p.pr + out_w % 2;
      // With a channel multiplier the AVX2 path keeps the in-place kernel for rows under 28; one
      // filter a channel takes the split walk's band kernel there (depthwise_stride2.cpp).
      Case c = windowed(5 + out_w % 4, in_w, k, k, 2, p.pl % 2, p.pl, 1, p.pr, out_w % 3 == 0);
      c.multiplier = 2;
      ASSERT_TRUE(c.valid()) << c.describe();
      ASSERT_EQ(c.shape().out_w, out_w) << c.describe();
#if defined(__x86_64__)
      ASSERT_EQ(depthwise_takes_stride2(Isa::Avx2, c.shape()), out_w < 28) << c.describe();
#endif
      EXPECT_EQ(check_exact(c, seed++, out_w % 2 == 0), "");
      c.multiplier = 1;
#if defined(__x86_64__)
      ASSERT_FALSE(depthwise_takes_stride2(Isa::Avx2, c.shape())) << c.describe();
      ASSERT_TRUE(depthwise_walk_takes_band_kernel(Isa::Avx2, c.shape())) << c.describe();
#endif
      EXPECT_EQ(check_exact(c, seed++, out_w % 2 == 1), "");
    }
  }
  for (std::size_t k : {3u, 7u}) {
    const std::size_t first = k == 3 ? 64 : 16, last = k == 3 ? 81 : 40;
    for (std::size_t out_w = first; out_w <= last; ++out_w) {
      const Pads pads[] = {{0, 0}, {k / 2, k / 2}, {k - 1, 0}, {0, k - 1}};
      const Pads& p = pads[out_w % 4];
      const std::size_t in_w = out_w - 1 + k - p.pl - p.pr;
      const Case c = windowed(k + out_w % 6, in_w, k, k, 1, p.pr, p.pl, p.pl, p.pr, out_w % 3 == 0);
      ASSERT_TRUE(c.valid()) << c.describe();
      ASSERT_EQ(c.shape().out_w, out_w) << c.describe();
#if defined(__x86_64__)
      ASSERT_TRUE(depthwise_takes_stride1(Isa::Avx2, c.shape())) << c.describe();
#endif
      EXPECT_EQ(check_exact(c, seed++, out_w % 2 == 0), "");
    }
  }
}

TEST(Depthwise, InfiniteWeightMeetsPaddingAsNaN) {
  Case c;
  c.in_h = c.in_w = 4;
  c.kh = c.kw = 3;
  c.pt = c.pl = c.pb = c.pr = 1;
  Data d;
  d.x.assign(16, 1.0f);
  d.w.assign(9, 0.0f);
  d.w[0] = std::numeric_limits<float>::infinity();  // top-left tap: padding for output row 0
  d.b.assign(1, 0.0f);
  for (Isa isa : depthwise_variant_paths()) {
    const std::vector<float> y = run_kernel(c, d, isa, true, nullptr);
    EXPECT_EQ(bits(y[0]), 0x7FC00000u) << isa_name(isa);
    EXPECT_EQ(y[5], std::numeric_limits<float>::infinity()) << isa_name(isa);
  }
}

// Large enough that the pool wakes the second thread (estimate above 80 000 ns).
TEST(Depthwise, ExactAndFastThreadIndependentOnLargeShapes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Depthwise.ExactAndFastThreadIndependentOnLargeShapes");
  Case c;
  c.channels = 96;
  c.in_h = c.in_w = 30;
  c.kh = c.kw = 3;
  c.pt = c.pl = c.pb = c.pr = 1;
  c.bias = true;
  // kernels-depthwise.md "Chunks": planes * (OutH*OutW*KH*KW/8 + PaddedH*PaddedW/2) ns, here
  // 96 * (8100/8 + 1024/2) = 145 152 ns: the pool wakes one helper.
  const Conv2dShape s = c.shape();
  const std::size_t chunks = (96 + depthwise_planes_per_chunk(s) - 1) / depthwise_planes_per_chunk(s);
#if !defined(ONEMODEL_NO_THREADS)
  // The premise: the estimate alone wakes a helper (a build without threads has no workers).
  ThreadPool two(2);
  EXPECT_GE(two.helpers_for(chunks, 96.0 * (900.0 * 9.0 / 8.0 + 32.0 * 32.0 / 2.0)), 1u);
#else
  (void)chunks;
#endif
  EXPECT_EQ(check_exact(c, 300, true), "");
  EXPECT_EQ(check_fast(c, 301), "");
  c.sh = c.sw = 2;
  c.kh = c.kw = 5;
  c.pt = c.pl = c.pb = c.pr = 2;
  EXPECT_EQ(check_exact(c, 302, true), "");
  EXPECT_EQ(check_fast(c, 303), "");
}

// Not a thread test: its cases have few planes, one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, FastWithinBound) {
  std::uint32_t seed = 400;
  for (std::size_t k : {1u, 3u, 5u, 9u}) {
    for (std::size_t in_w : {3u, 7u, 17u, 40u}) {
      Case c;
      c.channels = 3;
      c.multiplier = 2;
      c.in_h = 10;
      c.in_w = in_w;
      c.kh = c.kw = k;
      c.pt = c.pl = c.pb = c.pr = k / 2;
      c.sw = 1 + in_w % 2;
      c.bias = (k % 2) == 1;
      EXPECT_EQ(check_fast(c, seed++), "");
    }
  }
}

TEST(Depthwise, EmptyOutputWritesNothing) {
  Case c;
  c.batch = 0;
  c.in_h = c.in_w = 4;
  const Data d = random_data(c, 1, false);
  for (Isa isa : depthwise_variant_paths()) EXPECT_TRUE(run_kernel(c, d, isa, true, nullptr).empty());
}

#if ONEMODEL_HAVE_RAPIDCHECK
// Not a thread test: rapidcheck's shapes are mostly one chunk (ExactAndFastThreadIndependentOnLargeShapes
// splits).
TEST(Depthwise, GeneratedShapesExactOnEveryPath) {
  const bool ok = rc::check("depthwise exact equals the naive definition", [] {
    Case c;
    c.batch = *rc::gen::inRange<std::size_t>(1, 3);
    c.channels = *rc::gen::inRange<std::size_t>(1, 5);
    c.multiplier = *rc::gen::inRange<std::size_t>(1, 4);
    c.kh = *rc::gen::inRange<std::size_t>(1, 6);
    c.kw = *rc::gen::inRange<std::size_t>(1, 6);
    c.sh = *rc::gen::inRange<std::size_t>(1, 4);
    c.sw = *rc::gen::inRange<std::size_t>(1, 4);
    c.dh = *rc::gen::inRange<std::size_t>(1, 3);
    c.dw = *rc::gen::inRange<std::size_t>(1, 3);
    c.pt = *rc::gen::inRange<std::size_t>(0, 4);
    c.pl = *rc::gen::inRange<std::size_t>(0, 4);
    c.pb = *rc::gen::inRange<std::size_t>(0, 4);
    c.pr = *rc::gen::inRange<std::size_t>(0, 4);
    c.in_h = *rc::gen::inRange<std::size_t>(1, 20);
    c.in_w = *rc::gen::inRange<std::size_t>(1, 45);
    c.bias = *rc::gen::arbitrary<bool>();
    RC_PRE(c.valid());
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const bool special = *rc::gen::arbitrary<bool>();
    RC_ASSERT(check_exact(c, seed, special) == "");
    if (!special) RC_ASSERT(check_fast(c, seed) == "");
  });
  EXPECT_TRUE(ok);
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(DepthwiseRegistry, ListFormAndDispatch) {
  kernel_tests::expect_registry_form(depthwise_variants(), "f32_dwconv");
  EXPECT_FALSE(depthwise_variant_paths().empty());
}

}  // namespace
}  // namespace onemodel::opt
