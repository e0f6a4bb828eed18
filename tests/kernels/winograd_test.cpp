// Winograd F(2x2, 3x3) in fast mode (optimized/kernels/conv/winograd.*) on the AVX-512 and AVX2
// paths (each that this machine runs), called directly. Its results are not the direct sum's
// bits, so each output is checked against the convolution computed in double precision, within
// the rounding bound of the algorithm's own operations (below); at 1 and 2 threads (the same
// bits), over channel counts off a vector, odd and even maps, maps of several blocks, asymmetric
// and no padding, batch 2, with and without a bias; the fused activation and residual; the NaN
// report for infinite or NaN operands; and the selection rule (never exact mode, never off
// AVX-512 and AVX2, 3x3 stride 1 only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/winograd.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

struct Case : conv_test::Window {
  std::size_t batch = 1, cin = 16, cout = 16;
  bool bias = true;
  Case(std::size_t ci, std::size_t co, std::size_t h, std::size_t w, std::size_t pad) : cin(ci), cout(co) {
    in_h = h;
    in_w = w;
    kh = kw = 3;
    pt = pl = pb = pr = pad;
  }
  Conv2dShape shape() const { return conv_shape(batch, cin, cout, 1); }
  std::string describe() const {
    return "batch " + std::to_string(batch) + " Cin " + std::to_string(cin) + " Cout " + std::to_string(cout) +
           " in " + std::to_string(in_h) + "x" + std::to_string(in_w) + " pads " + std::to_string(pt) + "," +
           std::to_string(pl) + "," + std::to_string(pb) + "," + std::to_string(pr) + (bias ? " bias" : "");
  }
};

// The convolution in double (the value each output approximates) and a bound on the error of
// computing it by F(2x2, 3x3) in float32: the same algorithm on absolute values (|B^T| |d| |B|,
// |G| |g| |G^T|, the sum over channels, |A^T| . |A|, + |bias|) times gamma_n = n u / (1 - n u)
// for the longest chain of roundings n = Cin + 9 (2 input-transform additions, the rounded
// filter transform, one product, Cin - 1 sums, 4 output-transform additions and the bias; Higham,
// "Accuracy and Stability of Numerical Algorithms", section 3.1, as kernels-gemm.md "Accuracy"
// applies it to the direct sum).
struct Expected {
  std::vector<double> value, bound;
};

[[maybe_unused]] Expected expected(const Case& c, const Data& d) {
  const Conv2dShape s = c.shape();
  static constexpr double kBt[4][4] = {{1, 0, 1, 0}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 1, 0, 1}};  // |B^T|
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0, 0, 1}};    // |G|
  static constexpr double kAt[2][4] = {{1, 1, 1, 0}, {0, 1, 1, 1}};                              // |A^T|
  const double u = std::ldexp(1.0, -24), n = static_cast<double>(s.in_channels + 9);
  const double gamma = n * u / (1.0 - n * u);
  Expected e;
  e.value.assign(s.batch * s.out_channels * s.out_plane(), 0.0);
  e.bound.assign(e.value.size(), 0.0);
  auto input = [&](std::size_t b, std::size_t ch, long iy, long ix) -> double {
    if (iy < 0 || ix < 0 || iy >= static_cast<long>(s.in_h) || ix >= static_cast<long>(s.in_w)) return 0.0;
    const std::size_t row = (b * s.in_channels + ch) * s.in_h + static_cast<std::size_t>(iy);
    return d.x[row * s.in_w + static_cast<std::size_t>(ix)];
  };
  for (std::size_t b = 0; b < s.batch; ++b) {
    for (std::size_t o = 0; o < s.out_channels; ++o) {
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          const long y0 = static_cast<long>(oy / 2 * 2) - static_cast<long>(s.pad_top);
          const long x0 = static_cast<long>(ox / 2 * 2) - static_cast<long>(s.pad_left);
          const std::size_t i = oy % 2, j = ox % 2;
          double sum = 0.0, abs_sum = 0.0;
          for (std::size_t ch = 0; ch < s.in_channels; ++ch) {
            const float* g = d.w.data() + (o * s.in_channels + ch) * 9;
            for (std::size_t ky = 0; ky < 3; ++ky) {
              for (std::size_t kx = 0; kx < 3; ++kx) {
                sum += static_cast<double>(g[ky * 3 + kx]) *
                       input(b, ch, static_cast<long>(oy + ky) - static_cast<long>(s.pad_top),
                             static_cast<long>(ox + kx) - static_cast<long>(s.pad_left));
              }
            }
            double patch[4][4], v[4][4], gg[4][3], uu[4][4];
            for (int r = 0; r < 4; ++r) {
              for (int q = 0; q < 4; ++q) patch[r][q] = std::fabs(input(b, ch, y0 + r, x0 + q));
            }
            for (int r = 0; r < 4; ++r) {
              for (int q = 0; q < 4; ++q) {
                v[r][q] = 0.0;
                for (int a = 0; a < 4; ++a) {
                  for (int z = 0; z < 4; ++z) v[r][q] += kBt[r][a] * patch[a][z] * kBt[q][z];
                }
              }
            }
            for (int r = 0; r < 4; ++r) {
              for (int q = 0; q < 3; ++q) {
                gg[r][q] = 0.0;
                for (int a = 0; a < 3; ++a) gg[r][q] += kG[r][a] * std::fabs(g[a * 3 + q]);
              }
            }
            for (int r = 0; r < 4; ++r) {
              for (int q = 0; q < 4; ++q) {
                uu[r][q] = 0.0;
                for (int a = 0; a < 3; ++a) uu[r][q] += gg[r][a] * kG[q][a];
              }
            }
            for (int r = 0; r < 4; ++r) {
              for (int q = 0; q < 4; ++q) abs_sum += kAt[i][r] * kAt[j][q] * uu[r][q] * v[r][q];
            }
          }
          const std::size_t at = ((b * s.out_channels + o) * s.out_h + oy) * s.out_w + ox;
          if (c.bias) {
            sum += d.b[o];
            abs_sum += std::fabs(d.b[o]);
          }
          e.value[at] = sum;
          e.bound[at] = gamma * abs_sum + 1e-30;
        }
      }
    }
  }
  return e;
}

#if defined(__x86_64__)
// The Winograd paths this machine runs.
std::vector<Isa> winograd_paths() {
  std::vector<Isa> paths;
  for (Isa isa : {Isa::Avx512, Isa::Avx2}) {
    if (kernel_tests::machine_runs(isa)) paths.push_back(isa);
  }
  return paths;
}

// Runs the kernel of path `isa` (through the dispatch op_conv.cpp calls); returns its report,
// `out` the outputs (with 16 guard floats after them).
bool run(Isa isa, const Case& c, const Data& d, int threads, std::vector<float>& out,
         const ConvActivation* activation = nullptr) {
  const Conv2dShape s = c.shape();
  const std::vector<PackedA> packed = winograd_pack_weights(isa, s, d.w.data());
  // One thread: a workspace of the size winograd_blocks asks; two: the calling thread's own buffer.
  std::vector<float> workspace(threads == 1 ? winograd_blocks(s, 1).workspace : 0);
  ThreadPool pool(threads, two_threads::kAlways);
  const KernelContext context{isa, false, &pool};
  out.assign(s.batch * s.out_channels * s.out_plane() + 16, 12345.0f);
  return winograd_conv2d_f32(context, s, d.x.data(), packed, c.bias ? d.b.data() : nullptr, out.data(),
                             threads == 1 ? workspace.data() : nullptr, activation);
}

Data data_for(const Case& c, std::uint32_t seed) {
  const Conv2dShape s = c.shape();
  return conv_test::random_data(s.batch * s.in_channels * s.in_plane(), s.out_channels * s.in_channels * 9,
                                s.out_channels, seed, false, 13);
}

// "" or what is wrong with path isa's outputs for `c` (operands `d`, their sums and bounds `want`)
// at one and two threads.
std::string check(Isa isa, const Case& c, const Data& d, const Expected& want) {
  std::vector<float> one, two;
  const std::string where = std::string(isa_name(isa)) + " " + c.describe();
  if (!run(isa, c, d, 1, one)) return where + ": reported a NaN for finite operands";
  if (!run(isa, c, d, 2, two)) return where + ": reported a NaN at two threads";

  for (std::size_t i = 0; i < want.value.size(); ++i) {
    const double error = std::fabs(static_cast<double>(one[i]) - want.value[i]);
    if (!(error <= want.bound[i])) {
      return where + ": element " + std::to_string(i) + " is " + std::to_string(one[i]) + ", the sum " +
             std::to_string(want.value[i]) + ", error " + std::to_string(error) + " above the bound " +
             std::to_string(want.bound[i]);
    }
    if (bits(one[i]) != bits(two[i])) {
      return where + ": element " + std::to_string(i) + " differs at two threads";
    }
  }
  for (std::size_t i = want.value.size(); i < one.size(); ++i) {
    if (one[i] != 12345.0f || two[i] != 12345.0f) return where + ": wrote past the end";
  }
  return "";
}
#endif

TEST(Winograd, WithinTheAlgorithmsRoundingBoundAndTheSameAtTwoThreads) {
#if defined(__x86_64__)
  if (winograd_paths().empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  const two_threads::RequireSharedCalls shared_calls("Winograd.WithinTheAlgorithmsRoundingBoundAndTheSameAtTwoThreads");
  std::vector<Case> cases = {
      Case(16, 16, 14, 14, 1),   // whole tile rows of 7 tiles
      Case(24, 40, 13, 13, 1),   // odd map: the last tile's second row and column dropped
      Case(8, 16, 5, 9, 1),      // the smallest channel counts the rule takes
      Case(20, 24, 17, 37, 0),   // no padding: 15 x 35 outputs, 18 tiles a row (two vectors)
      Case(32, 48, 30, 1, 1),    // one column
      Case(33, 17, 40, 70, 1),   // 35 tiles a row, channels off the vector
      Case(8, 16, 80, 160, 1),   // 40 tile rows of 80 in two blocks (winograd_blocks)
      Case(16, 16, 8, 8, 1),     // 4 tiles a row: AVX2's one vector, part of AVX-512's
      Case(16, 16, 9, 17, 0),    // 8 tiles a row whose last patch ends the input row
      Case(16, 24, 6, 34, 1),    // 17 tiles a row: AVX2's third vector holds one
  };
  Case asymmetric(24, 40, 12, 18, 0);
  asymmetric.pt = 2;
  asymmetric.pb = 1;
  asymmetric.pr = 2;
  cases.push_back(asymmetric);
  // A right pad of 3: the last of 8 tiles a row reads two padding columns past the row's end,
  // which AVX2's second load of a row (columns 8-15 of the vector's 18) must not take from the
  // next row.
  Case wide_right(16, 16, 10, 14, 1);
  wide_right.pr = 3;
  cases.push_back(wide_right);
  Case batch2(24, 32, 11, 19, 1);
  batch2.batch = 2;
  batch2.bias = false;
  cases.push_back(batch2);
  ASSERT_GT(winograd_blocks(cases[6].shape(), 1).count, 1u) << "the case must span blocks";
  // The kernel serves any 3x3 unstrided shape; the rule (tested below) only says where it is the
  // faster choice, so small cases test the edges cheaply. The sums and bounds (the test's own
  // double-precision arithmetic, most of its time in the Checked build) are worked once per case.
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    const Data d = data_for(c, seed);
    const Expected want = expected(c, d);
    for (Isa isa : winograd_paths()) ASSERT_EQ(check(isa, c, d, want), "");
    ++seed;
  }
#else
  GTEST_SKIP() << "Winograd F(2x2, 3x3) runs on the x86-64 AVX-512 and AVX2 paths only";
#endif
}

// The fused epilogue: each output channel's bias, then the residual at the output's own position,
// then the activation (Relu here), as conv_activation_step.hpp applies it to finished rows.
TEST(Winograd, FusedResidualAndActivationReadEachOutputsOwnPosition) {
#if defined(__x86_64__)
  if (winograd_paths().empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  Case c(24, 40, 15, 21, 1);
  c.batch = 2;
  const Data d = data_for(c, 77);
  const Expected want = expected(c, d);
  std::vector<float> residual(want.value.size());
  for (std::size_t i = 0; i < residual.size(); ++i) residual[i] = static_cast<float>(i % 97) * 0.03125f - 1.5f;
  ConvActivation activation;
  activation.args.op = ew::UnaryOp::Relu;
  activation.residual = residual.data();
  for (Isa isa : winograd_paths()) {
    std::vector<float> got;
    ASSERT_TRUE(run(isa, c, d, 1, got, &activation));
    for (std::size_t i = 0; i < want.value.size(); ++i) {
      const double with_residual = want.value[i] + residual[i];
      const double expected_value = with_residual > 0.0 ? with_residual : 0.0;
      // The residual's one rounding on top of the convolution's bound.
      const double bound = want.bound[i] + std::fabs(with_residual) * std::ldexp(1.0, -24) + 1e-30;
      ASSERT_LE(std::fabs(got[i] - expected_value), bound) << isa_name(isa) << " " << c.describe() << " element " << i;
    }
  }
#else
  GTEST_SKIP() << "Winograd F(2x2, 3x3) runs on the x86-64 AVX-512 and AVX2 paths only";
#endif
}

// An infinite input or weight gives NaN in outputs where the direct sum gives an infinity (the
// transforms add it with both signs): the kernel must say so, so that the caller computes the
// direct sum (op_conv.cpp); finite operands never take that second pass (the test above).
TEST(Winograd, ReportsNaNForInfiniteOrNaNOperands) {
#if defined(__x86_64__)
  if (winograd_paths().empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  const Case c(16, 16, 9, 11, 1);
  const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (Isa isa : winograd_paths()) {
    for (float special : specials) {
      for (std::size_t at : {std::size_t{0}, std::size_t{5 * 11 + 4}, std::size_t{15 * 99 + 98}}) {
        Data d = data_for(c, 5);
        d.x[at] = special;
        std::vector<float> got;
        EXPECT_FALSE(run(isa, c, d, 1, got)) << isa_name(isa) << " input " << at << " = " << special;
      }
      Data d = data_for(c, 6);
      d.w[7 * 16 * 9 + 3 * 9 + 4] = special;
      std::vector<float> got;
      EXPECT_FALSE(run(isa, c, d, 2, got)) << isa_name(isa) << " weight = " << special;
    }
  }
#else
  GTEST_SKIP() << "Winograd F(2x2, 3x3) runs on the x86-64 AVX-512 and AVX2 paths only";
#endif
}

TEST(Winograd, SelectionRule) {
  const Case c(64, 64, 56, 56, 1);
  const Conv2dShape s = c.shape();
  EXPECT_FALSE(winograd_takes(Isa::Avx512, true, s)) << "exact mode fixes the direct sum's order";
  EXPECT_FALSE(winograd_takes(Isa::Avx2, true, s)) << "exact mode fixes the direct sum's order";
  EXPECT_FALSE(winograd_takes(Isa::Sse, false, s));
  EXPECT_FALSE(winograd_takes(Isa::Scalar, false, s));
  // One attribute changed at a time, each one the rule refuses.
  const auto refused = [&](void (*change)(Conv2dShape&), const char* what) {
    Conv2dShape changed = s;
    change(changed);
    EXPECT_FALSE(winograd_takes(Isa::Avx512, false, changed)) << what;
  };
  refused([](Conv2dShape& t) { t.stride_w = 2; }, "stride 2");
  refused([](Conv2dShape& t) { t.dilation_h = 2; }, "dilation 2");
  refused([](Conv2dShape& t) { t.groups = 2; }, "two groups");
  refused([](Conv2dShape& t) { t.kernel_w = 5; }, "a 3 x 5 kernel");
  refused([](Conv2dShape& t) { t.in_channels = 7; }, "7 input channels");
  // A tile row's workspace above its bound (winograd.cpp).
  refused([](Conv2dShape& t) {
    t.in_h = t.out_h = 2;
    t.in_w = t.out_w = 1 << 16;
  }, "a 65536-wide row");
  // Small maps (winograd.cpp): 16 tiles stay direct whatever the channels (session 40: in a model
  // the transformed filters of a 7 x 7 map's layer are read from memory for too few tiles); 36
  // and 49 tiles do not.
  const Conv2dShape small_map = Case(128, 32, 7, 7, 1).shape(), more_tiles = Case(32, 32, 14, 14, 1).shape();
  EXPECT_FALSE(winograd_takes(Isa::Avx512, false, small_map));
  EXPECT_FALSE(winograd_takes(Isa::Avx512, false, Case(512, 512, 7, 7, 1).shape()));
  EXPECT_FALSE(winograd_takes(Isa::Avx2, false, Case(192, 384, 8, 8, 1).shape()));
  // Wide layers (winograd.cpp): a block of FCN-ResNet50's 2048 -> 512 head at 16 x 16 holds 24
  // tiles (64 on the map), so the head keeps the product.
  EXPECT_FALSE(winograd_takes(Isa::Avx512, false, Case(2048, 512, 16, 16, 1).shape()));
#if defined(__x86_64__)
  EXPECT_TRUE(winograd_takes(Isa::Avx2, false, s));
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, s));
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, more_tiles));
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, Case(512, 512, 11, 11, 1).shape())) << "36 tiles";
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, Case(512, 512, 16, 16, 1).shape())) << "one block of 64 tiles";
  // Few input channels over wide rows (winograd.cpp, kDirectInputChannels): SqueezeNet's 16 -> 64
  // at 55 x 55 goes to the direct kernel, which serves it; 32 channels, or rows under 48 columns,
  // keep Winograd.
  const Conv2dShape squeeze_expand = Case(16, 64, 55, 55, 1).shape();
  ASSERT_TRUE(conv_stem_takes(Isa::Avx512, false, squeeze_expand));
  EXPECT_FALSE(winograd_takes(Isa::Avx512, false, squeeze_expand));
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, Case(32, 64, 55, 55, 1).shape())) << "32 input channels";
  EXPECT_TRUE(winograd_takes(Isa::Avx512, false, Case(16, 32, 28, 28, 1).shape())) << "rows of 28";
#else
  (void)more_tiles;
  EXPECT_FALSE(winograd_takes(Isa::Avx512, false, s)) << "no kernel off x86-64";
#endif
}

}  // namespace
}  // namespace onemodel::opt
