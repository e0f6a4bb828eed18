// The direct stem convolution (optimized/kernels/conv/conv_stem.*) on the AVX-512 path, called
// directly: exact mode bit for bit against a naive loop written from exact-mode.md "Convolution"
// (+0, then w * x over k = (c, ky, kx) in increasing order, product rounded then sum rounded,
// padding a real +0, the bias one rounded addition, NaN stored as 0x7FC00000), fast mode against
// the same loop with one fused multiply-add per tap (std::fma: the same single rounding), and
// exact mode against the im2col path (conv2d_f32) on the same path; at 1 and 2 threads, with
// partial channel and column tiles, strides 1 to 3, dilation, asymmetric pads, batch 2, special
// values (an infinite weight meeting padding gives NaN), and the selection rule. A machine without
// AVX-512 reports the kernel tests skipped; off x86-64 the rule must never take a shape.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_columns.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

struct Case : conv_test::Window {
  std::size_t batch = 1, cin = 3, cout = 16, groups = 1;
  bool bias = true;
  Conv2dShape shape() const { return conv_shape(batch, cin, cout, groups); }
  std::string describe() const {
    return "batch " + std::to_string(batch) + " Cin " + std::to_string(cin) + " Cout " + std::to_string(cout) +
           " groups " + std::to_string(groups) + " in " +
           std::to_string(in_h) + "x" + std::to_string(in_w) + " k " + std::to_string(kh) + "x" + std::to_string(kw) +
           " s " + std::to_string(sh) + "," + std::to_string(sw) + " d " + std::to_string(dh) + "," +
           std::to_string(dw) + " pads " + std::to_string(pt) + "," + std::to_string(pl) + "," + std::to_string(pb) +
           "," + std::to_string(pr) + (bias ? " bias" : "");
  }
};

[[maybe_unused]] std::vector<float> naive(const Case& c, const Data& d, bool exact) {
  const Conv2dShape s = c.shape();
  std::vector<float> y(s.batch * s.out_channels * s.out_plane());
  const std::size_t cg = s.in_per_group();
  for (std::size_t n = 0; n < s.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      // Output channel oc reads its group's input channels (products-conv.md: group oc / (Cout/G)).
      const std::size_t first_channel = oc / s.out_per_group() * cg;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          float acc = 0.0f;
          for (std::size_t ci = 0; ci < cg; ++ci) {
            for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
              for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
                const long iy = static_cast<long>(oy * s.stride_h + ky * s.dilation_h) - static_cast<long>(s.pad_top);
                const long ix = static_cast<long>(ox * s.stride_w + kx * s.dilation_w) - static_cast<long>(s.pad_left);
                const bool inside = iy >= 0 && iy < static_cast<long>(s.in_h) && ix >= 0 && ix < static_cast<long>(s.in_w);
                const float v = inside ? d.x[((n * s.in_channels + first_channel + ci) * s.in_h +
                                              static_cast<std::size_t>(iy)) * s.in_w +
                                             static_cast<std::size_t>(ix)]
                                       : 0.0f;
                const float wv = d.w[((oc * cg + ci) * s.kernel_h + ky) * s.kernel_w + kx];
                if (exact) {
                  const float product = wv * v;
                  acc = acc + product;
                } else {
                  acc = std::fma(wv, v, acc);
                }
              }
            }
          }
          if (c.bias) acc = acc + d.b[oc];
          if (exact && acc != acc) acc = std::bit_cast<float>(0x7FC00000u);
          y[((n * s.out_channels + oc) * s.out_h + oy) * s.out_w + ox] = acc;
        }
      }
    }
  }
  return y;
}

#if defined(__x86_64__)
using StemKernel = void (*)(const KernelContext&, const Conv2dShape&, const float*, const float*, const float*, float*,
                            const ConvActivation*);

// "" or the first difference of the direct kernel (the stem entry point, or `kernel`) from the
// naive loop (both modes) and, in exact mode, from the im2col path, at `threads` threads.
// The direct kernel's paths this machine runs: AVX-512 (conv_stem_avx512.cpp) and its AVX2 twin
// (conv_stem_avx2.cpp), each with its own packed-weight layout (conv_stem_pack_weights).
struct StemPath {
  Isa isa;
  StemKernel kernel;
};

std::vector<StemPath> stem_paths() {
  std::vector<StemPath> paths;
  if (kernel_tests::machine_runs(Isa::Avx512)) paths.push_back({Isa::Avx512, conv_stem_f32__avx512});
  if (kernel_tests::machine_runs(Isa::Avx2)) paths.push_back({Isa::Avx2, conv_stem_f32__avx2});
  return paths;
}

std::string check(const Case& c, std::uint32_t seed, bool special, int threads, StemPath path) {
  const Conv2dShape s = c.shape();
  const Data d = conv_test::random_data(s.batch * s.in_channels * s.in_plane(),
                                        s.out_channels * s.in_per_group() * s.taps(), s.out_channels, seed, special, 13);
  const std::vector<float> packed = conv_stem_pack_weights(path.isa, s, d.w.data());
  const StemKernel kernel = path.kernel;
  ThreadPool pool(threads, two_threads::kAlways);
  for (bool exact : {true, false}) {
    const KernelContext context{path.isa, exact, &pool};
    const std::vector<float> want = naive(c, d, exact);
    std::vector<float> got(want.size() + 16, 12345.0f);
    kernel(context, s, d.x.data(), packed.data(), c.bias ? d.b.data() : nullptr, got.data(), nullptr);
    std::string diff;
    if (exact) {
      diff = conv_test::first_bit_difference(got, want);
    } else {
      // Fast mode stores NaN as the hardware makes it (exact-mode.md rule 4 is exact mode's): a
      // NaN's sign and payload depend on the operand order of the fused instruction, so a NaN
      // matches any NaN; every other value to the bit.
      for (std::size_t i = 0; i < want.size() && diff.empty(); ++i) {
        const bool both_nan = got[i] != got[i] && want[i] != want[i];
        if (!both_nan && bits(got[i]) != bits(want[i])) {
          diff = " element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(want[i]);
        }
      }
    }
    if (!diff.empty()) return c.describe() + " " + std::string(isa_name(path.isa)) + (exact ? " exact" : " fast") + diff;
    for (std::size_t i = want.size(); i < got.size(); ++i) {
      if (got[i] != 12345.0f) return c.describe() + " wrote past the end";
    }
    if (exact) {
      std::vector<float> im2col(want.size());
      std::vector<float> workspace(conv2d_workspace_floats(s) + 1);
      conv2d_f32(context, s, d.x.data(), d.w.data(), c.bias ? d.b.data() : nullptr, im2col.data(), workspace.data());
      diff = conv_test::first_bit_difference(got, im2col);
      if (!diff.empty()) return c.describe() + " " + std::string(isa_name(path.isa)) + " exact, against conv2d_f32" + diff;
    }
  }
  return "";
}
#endif

TEST(ConvStem, ShapesOfNetworkStemsAndEdges) {
#if defined(__x86_64__)
  const std::vector<StemPath> paths = stem_paths();
  if (paths.empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  const two_threads::RequireSharedCalls shared_calls("ConvStem.ShapesOfNetworkStemsAndEdges");
  std::uint32_t seed = 1;
  std::vector<Case> cases;
  auto add = [&](std::size_t cin, std::size_t cout, std::size_t in, std::size_t k, std::size_t stride, std::size_t pad) {
    Case c;
    c.cin = cin;
    c.cout = cout;
    c.in_h = in;
    c.in_w = in + 3;
    c.kh = c.kw = k;
    c.sh = c.sw = stride;
    c.pt = c.pl = c.pb = c.pr = pad;
    cases.push_back(c);
  };
  add(3, 64, 40, 7, 2, 3);  // ResNet and GoogLeNet stem (a smaller map)
  add(3, 32, 37, 3, 2, 1);  // EfficientNet, MnasNet, MobileNet stems
  add(3, 24, 29, 3, 2, 1);  // ShuffleNet: a partial channel tile
  add(1, 16, 20, 5, 1, 2);
  add(4, 20, 23, 3, 1, 0);
  add(2, 17, 26, 4, 3, 1);  // stride 3: the general column loop
  add(3, 16, 16, 3, 1, 1);
  add(3, 32, 70, 3, 1, 1);  // 73-wide rows: 14 rows per chunk, 5 chunks (the two-thread case)
  add(24, 32, 45, 3, 1, 1);  // beyond stems: few output channels over 48-wide rows, K = 216
  add(10, 64, 46, 5, 1, 2);  // K = 250 from 10 channels, two full channel tiles
  add(40, 32, 25, 3, 1, 1);  // 28-wide rows: two whole 14-column tiles (fast mode's rule under 48)
  Case dilated;
  dilated.cin = 3;
  dilated.cout = 48;
  dilated.in_h = 21;
  dilated.in_w = 34;
  dilated.kh = 3;
  dilated.kw = 5;
  dilated.sh = 1;
  dilated.sw = 2;
  dilated.dh = 2;
  dilated.dw = 3;
  dilated.pt = 2;
  dilated.pl = 0;
  dilated.pb = 1;
  dilated.pr = 4;
  cases.push_back(dilated);
  Case batch2 = cases[1];
  batch2.batch = 2;
  batch2.bias = false;
  cases.push_back(batch2);
  // Columns around the AVX2 kernel's 14-column tile (conv_stem_avx2.cpp): 13, 14, 15, 28 and 29
  // output columns of a 3 -> 8 stem and a 3 -> 16 one (one and two registers of channels).
  const std::size_t stem_cases = cases.size();
  for (std::size_t out_w : {13, 14, 15, 28, 29}) {
    for (std::size_t cout : {8, 16}) {
      Case c;
      c.cin = 3;
      c.cout = cout;
      c.in_h = 9;
      c.in_w = 2 * out_w;  // 3x3 stride 2 pad 1: out_w columns
      c.kh = c.kw = 3;
      c.sh = c.sw = 2;
      c.pt = c.pl = c.pb = c.pr = 1;
      cases.push_back(c);
    }
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (i < stem_cases) {
      ASSERT_TRUE(conv_stem_takes(Isa::Avx512, false, c.shape())) << c.describe();
    }
    // The kernels serve any such shape; the AVX2 predicate (conv_stem.cpp) takes fewer of them.
    for (const StemPath& path : paths) {
      for (int threads : {1, 2}) {
        for (bool special : {false, true}) ASSERT_EQ(check(c, seed++, special, threads, path), "");
      }
    }
  }
#else
  GTEST_SKIP() << "the direct stem kernel is x86-64 only";
#endif
}

// Grouped convolutions (conv_stem.cpp, grouped_takes): each group's output channels read only
// its input channels and its weights, against the naive loop and im2col, both modes, one and two
// threads, special values: 16, 32 and 64 filters a group, 2 to 16 channels a group, stride 2, a
// dilated 3 x 5 window with asymmetric pads, rows of a part tile (7 and 15 columns), fewer than
// eight (image, group) pairs (chunks of rows) and eight or more (a chunk per pair), a batch of two;
// on AVX2 also 4 and 8 filters a group and maps of at most 7 columns (tiles of two rows).
TEST(ConvStem, GroupedConvolutionsMatchTheNaiveLoop) {
#if defined(__x86_64__)
  const std::vector<StemPath> paths = stem_paths();
  if (paths.empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  const two_threads::RequireSharedCalls shared_calls("ConvStem.GroupedConvolutionsMatchTheNaiveLoop");
  struct Grouped {
    std::size_t cin, cout, groups, in_h, in_w, k_h, k_w, stride, dilation, pt, pl, pb, pr, batch;
  };
  std::uint32_t seed = 5100;
  for (const Grouped& g : {Grouped{64, 64, 4, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{64, 64, 4, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 2},
                           Grouped{64, 128, 4, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{32, 128, 2, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{32, 64, 4, 29, 30, 3, 3, 2, 1, 1, 1, 1, 1, 1},
                           Grouped{24, 48, 3, 20, 18, 3, 5, 1, 2, 2, 1, 1, 3, 1},
                           Grouped{32, 64, 2, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{16, 128, 8, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           // 8 filters a group (RegNet-Y, ResNeXt's second stage): one AVX2
                           // register; at 14, 28 (whole tiles), 15 and 13 columns, stride 2
                           Grouped{64, 64, 8, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{64, 64, 8, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 2},
                           Grouped{48, 48, 6, 15, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{32, 32, 4, 26, 26, 3, 3, 2, 1, 1, 1, 1, 1, 1},
                           // 4 filters a group (ResNeXt's first stage): half a register
                           Grouped{32, 32, 8, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           // maps at most 7 wide: the AVX2 kernel's tiles of two rows of 7
                           // columns (pairs of rows, then a last single row of an odd chunk)
                           Grouped{64, 64, 8, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{128, 256, 8, 14, 13, 3, 3, 2, 1, 1, 1, 1, 1, 2},
                           Grouped{32, 32, 2, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           // ResNeXt's shapes, 16 and 32 filters a group of 16 or 32 channels,
                           // on AVX2: full stores running into rows the chunk stores later,
                           // block lines filled by whole vectors, weights in blocks of 8
                           // channels, an odd last row of a chunk of 7-wide maps computed as a
                           // pair's first row (rows of 2 at 7 x 7 with 4 groups; whole planes of
                           // 7 rows with a batch of two)
                           Grouped{256, 256, 16, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{128, 128, 8, 28, 28, 3, 3, 2, 1, 1, 1, 1, 1, 1},
                           Grouped{64, 64, 2, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{128, 128, 4, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{128, 128, 4, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 2},
                           Grouped{128, 128, 4, 14, 14, 3, 3, 2, 1, 1, 1, 1, 1, 2},
                           Grouped{64, 64, 4, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                           Grouped{64, 64, 4, 13, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1}}) {
    Case c;
    c.cin = g.cin;
    c.cout = g.cout;
    c.groups = g.groups;
    c.in_h = g.in_h;
    c.in_w = g.in_w;
    c.kh = g.k_h;
    c.kw = g.k_w;
    c.sh = c.sw = g.stride;
    c.dh = c.dw = g.dilation;
    c.pt = g.pt;
    c.pl = g.pl;
    c.pb = g.pb;
    c.pr = g.pr;
    c.batch = g.batch;
    c.bias = (seed / 4) % 2 == 0;  // alternate cases: seed rises by four a case
    ASSERT_TRUE(c.conv_valid()) << c.describe();
    for (const StemPath& path : paths) {
      for (int threads : {1, 2}) {
        for (bool special : {false, true}) ASSERT_EQ(check(c, seed++, special, threads, path), "");
      }
    }
  }
#else
  GTEST_SKIP() << "the direct stem kernel is x86-64 only";
#endif
}

// A grouped convolution's epilogue reads the whole Conv's channel of each output: the fused
// normalization's factor and shift, the residual at the output's own position, then a Relu (and a
// Relu alone, applied in the tile's stores), against the kernel without it followed by the
// activation step per channel over the whole output (apply_conv_activation), both modes, one and
// two threads, with fewer than eight (image, group) pairs and with eight.
TEST(ConvStem, GroupedEpilogueReadsEachOutputsChannel) {
#if defined(__x86_64__)
  const std::vector<StemPath> paths = stem_paths();
  if (paths.empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  const two_threads::RequireSharedCalls shared_calls("ConvStem.GroupedEpilogueReadsEachOutputsChannel");
  std::uint32_t seed = 5300;
  for (const StemPath& path : paths) {
    for (std::size_t batch : {1, 2}) {
      Case c;
      c.cin = 32;
      c.cout = 64;
      c.groups = 4;
      c.in_h = 15;
      c.in_w = 14;
      c.kh = c.kw = 3;
      c.pt = c.pl = c.pb = c.pr = 1;
      c.batch = batch;
      const Conv2dShape s = c.shape();
      ASSERT_TRUE(conv_stem_takes(Isa::Avx512, true, s)) << c.describe();
      const Data d =
          conv_test::random_data(s.batch * s.in_channels * s.in_plane(), s.out_channels * s.in_per_group() * s.taps(),
                                 s.out_channels, seed++, true, 13);
      const std::vector<float> packed = conv_stem_pack_weights(path.isa, s, d.w.data());
      const std::size_t size = s.batch * s.out_channels * s.out_plane();
      std::vector<float> scale(s.out_channels), shift(s.out_channels), residual(size);
      for (std::size_t i = 0; i < s.out_channels; ++i) {
        scale[i] = 0.25f + 0.01f * static_cast<float>(i);
        shift[i] = -0.5f + 0.02f * static_cast<float>(i);
      }
      for (std::size_t i = 0; i < size; ++i) residual[i] = static_cast<float>(i % 97) * 0.03f - 1.0f;
      for (bool with_norm : {true, false}) {
        ConvActivation activation;
        activation.args.op = ew::UnaryOp::Relu;
        if (with_norm) {
          activation.norm_scale = scale.data();
          activation.norm_shift = shift.data();
          activation.residual = residual.data();
        }
        for (int threads : {1, 2}) {
          ThreadPool pool(threads, two_threads::kAlways);
          for (bool exact : {true, false}) {
            const KernelContext context{path.isa, exact, &pool};
            activation.args = ew::for_mode(activation.args, exact);
            std::vector<float> plain(size), fused(size);
            path.kernel(context, s, d.x.data(), packed.data(), d.b.data(), plain.data(), nullptr);
            path.kernel(context, s, d.x.data(), packed.data(), d.b.data(), fused.data(), &activation);
            for (std::size_t n = 0; n < s.batch; ++n) {
              for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
                const std::size_t at = (n * s.out_channels + oc) * s.out_plane();
                apply_conv_activation(path.isa, activation, oc, plain.data() + at, s.out_plane(), at);
              }
            }
            EXPECT_EQ(conv_test::first_bit_difference(fused, plain), "")
                << c.describe() << " " << isa_name(path.isa) << (exact ? " exact" : " fast")
                << (with_norm ? " norm and residual" : " Relu") << " threads " << threads;
          }
        }
      }
    }
  }
#else
  GTEST_SKIP() << "the direct stem kernel is x86-64 only";
#endif
}

// The columns kernel (conv_stem_columns.hpp) called directly, against the naive loop and im2col:
// 3-, 5- and 7-wide windows at column stride 1 and 2, row stride 1 to 3 and a row dilation, rows
// that end in a tile of one, two or three vectors (out_w 8, 17, 30, 33, 47, 49, 61), channel counts
// that leave a partial block of eight (20, 36), symmetric, asymmetric and no padding, a batch of
// two, with and without bias, special values, one and two threads. Which shapes the stem entry
// point hands it is conv_stem_columns_takes (checked on the network stems below).
TEST(ConvStem, ColumnsKernelMatchesTheNaiveLoop) {
#if defined(__x86_64__)
  if (!kernel_tests::machine_runs(Isa::Avx512)) GTEST_SKIP() << "this machine has no AVX-512";
  const two_threads::RequireSharedCalls shared_calls("ConvStem.ColumnsKernelMatchesTheNaiveLoop");
  struct Shape {
    std::size_t cin, cout, in_h, in_w, k_h, k_w, s_h, s_w, d_h, pt, pl, pb, pr, batch;
    bool bias;
  };
  std::uint32_t seed = 3100;
  for (const Shape& g : {Shape{3, 64, 40, 43, 7, 7, 2, 2, 1, 3, 3, 3, 3, 1, true},
                         Shape{3, 32, 37, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true},
                         Shape{3, 24, 29, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 2, false},
                         Shape{3, 20, 18, 17, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1, true},
                         Shape{4, 36, 21, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true},
                         Shape{2, 40, 25, 50, 5, 5, 3, 2, 1, 2, 2, 2, 2, 1, true},
                         Shape{1, 17, 30, 53, 5, 3, 1, 1, 2, 2, 0, 2, 3, 1, true},
                         Shape{3, 48, 19, 100, 7, 5, 2, 2, 1, 3, 2, 3, 2, 1, true},
                         Shape{3, 32, 12, 63, 3, 7, 1, 1, 1, 0, 1, 1, 2, 1, true},
                         Shape{3, 64, 70, 122, 3, 3, 2, 2, 1, 0, 0, 0, 0, 1, true}}) {
    Case c;
    c.cin = g.cin;
    c.cout = g.cout;
    c.in_h = g.in_h;
    c.in_w = g.in_w;
    c.kh = g.k_h;
    c.kw = g.k_w;
    c.sh = g.s_h;
    c.sw = g.s_w;
    c.dh = g.d_h;
    c.pt = g.pt;
    c.pl = g.pl;
    c.pb = g.pb;
    c.pr = g.pr;
    c.batch = g.batch;
    c.bias = g.bias;
    ASSERT_TRUE(c.conv_valid()) << c.describe();
    ASSERT_TRUE(conv_stem_takes(Isa::Avx512, false, c.shape())) << c.describe();
    ASSERT_TRUE(conv_stem_columns_takes(c.shape()) || c.cout <= 16) << c.describe();
    for (int threads : {1, 2}) {
      for (bool special : {false, true}) {
        ASSERT_EQ(check(c, seed++, special, threads, StemPath{Isa::Avx512, conv_stem_columns_f32__avx512}), "");
      }
    }
  }
#else
  GTEST_SKIP() << "the direct stem kernel is x86-64 only";
#endif
}

// Which stems the entry point hands to the columns kernel (conv_stem.cpp has the measurements).
TEST(ConvStem, ColumnsKernelSelection) {
  Case stem;
  stem.in_h = stem.in_w = 224;
  stem.kh = stem.kw = 3;
  stem.sh = stem.sw = 2;
  stem.pt = stem.pl = stem.pb = stem.pr = 1;
  stem.cout = 32;
  EXPECT_TRUE(conv_stem_columns_takes(stem.shape()));
  stem.cout = 16;  // one register of sixteen channels: the channels-in-lanes kernel
  EXPECT_FALSE(conv_stem_columns_takes(stem.shape()));
  stem.cout = 64;
  stem.kh = stem.kw = 7;
  stem.pt = stem.pl = stem.pb = stem.pr = 3;
  EXPECT_TRUE(conv_stem_columns_takes(stem.shape()));
  Case wide = stem;
  wide.cin = 64;  // K is long: the transposes weigh little
  wide.kh = wide.kw = 3;
  wide.sh = wide.sw = 1;
  wide.pt = wide.pl = wide.pb = wide.pr = 1;
  EXPECT_FALSE(conv_stem_columns_takes(wide.shape()));
  Case strided = stem;
  strided.sw = 3;
  EXPECT_FALSE(conv_stem_columns_takes(strided.shape()));
  Case dilated = stem;
  dilated.dw = 2;
  EXPECT_FALSE(conv_stem_columns_takes(dilated.shape()));
  Case four = stem;
  four.kw = 4;
  EXPECT_FALSE(conv_stem_columns_takes(four.shape()));
}

// A Relu, Clip, LeakyRelu, HardSwish or SiLU fused into the stem (applied in the tile before the
// store on the AVX-512 path, over the finished rows on the AVX2 path) against the kernel without
// it followed by the activation written out here (spec/ops/elementwise.md, every NaN 0x7FC00000;
// SiLU by the separate Sigmoid and Mul kernels of the node's mode): both modes, special values
// (NaN payloads, signed zeros, infinities), stems of 64, 32 and 16 output channels and a partial
// channel tile, maps 23, 7 and 3 columns wide, one and two threads. A residual or a normalization
// keeps the separate pass.
TEST(ConvStem, FusedActivationGivesTheSeparateStepsBits) {
#if defined(__x86_64__)
  const std::vector<StemPath> paths = stem_paths();
  if (paths.empty()) GTEST_SKIP() << "this machine has neither AVX-512 nor AVX2";
  // 17 output rows in chunks of 5: each two-thread run shares its chunks.
  const two_threads::RequireSharedCalls shared_calls("ConvStem.FusedActivationGivesTheSeparateStepsBits");
  std::uint32_t seed = 900;
  struct Stem {
    std::size_t cout;
    ew::UnaryOp op;
  };
  for (const StemPath& path : paths) {
    for (const Stem stem : {Stem{64, ew::UnaryOp::Relu}, Stem{32, ew::UnaryOp::Clip}, Stem{24, ew::UnaryOp::LeakyRelu},
                            Stem{16, ew::UnaryOp::HardSwish}, Stem{32, ew::UnaryOp::Silu}}) {
      // 43 output columns (the AVX2 SiLU pass over finished rows takes four vectors a step, then
      // one, then an overlapping last vector), 23 (one vector a step, the overlapping last), and
      // maps at most 7 wide (its two-row tiles): 7 and 3 columns, bands of 14 and of 6 (a masked
      // vector).
      for (const std::size_t in : {85, 45, 13, 5}) {
        const std::size_t cout = stem.cout;
        Case c;
        c.cin = 3;
        c.cout = cout;
        c.in_h = in == 45 ? 33 : in;
        c.in_w = in;
        c.kh = c.kw = cout == 64 ? 7 : 3;
        c.sh = c.sw = 2;
        c.pt = c.pl = c.pb = c.pr = c.kh / 2;
        const Conv2dShape s = c.shape();
        const Data d =
            conv_test::random_data(s.batch * s.in_channels * s.in_plane(), s.out_channels * s.in_channels * s.taps(),
                                   s.out_channels, seed++, true, 13);
        const std::vector<float> packed = conv_stem_pack_weights(path.isa, s, d.w.data());
        ConvActivation activation;
        activation.args.op = stem.op;
        activation.args.alpha = stem.op == ew::UnaryOp::Clip ? 0.0f : 0.1f;  // ReLU6 or a slope of 0.1
        activation.args.beta = 6.0f;
        const auto separate = [&](float v) {
          float r = v;
          if (activation.args.op == ew::UnaryOp::Silu) {
            float gate = 0.0f, product = 0.0f;
            ew::unary_f32_run(path.isa, ew::for_mode(ew::UnaryArgs{ew::UnaryOp::Sigmoid}, !activation.args.fast), &v,
                              &gate, 1);
            ew::binary_f32_run(path.isa, ew::BinaryOp::Mul, &v, 1, &gate, 1, &product, 1);
            return product;
          }
          if (activation.args.op == ew::UnaryOp::HardSwish) {
            float gate = v * 0.16666667f;
            gate = gate + 0.5f;
            gate = gate < 0.0f ? 0.0f : gate;
            gate = gate > 1.0f ? 1.0f : gate;
            r = v * gate;
          } else if (activation.args.op == ew::UnaryOp::Relu) {
            r = v > 0.0f ? v : 0.0f;
          } else if (activation.args.op == ew::UnaryOp::Clip) {
            r = v < activation.args.alpha ? activation.args.alpha : v;
            r = r > activation.args.beta ? activation.args.beta : r;
          } else {
            volatile float product = activation.args.alpha * v;
            r = v < 0.0f ? static_cast<float>(product) : v;
          }
          return v != v || r != r ? std::bit_cast<float>(0x7FC00000u) : r;  // Relu drops a NaN input's value
        };
        for (int threads : {1, 2}) {
          ThreadPool pool(threads, two_threads::kAlways);
          for (bool exact : {true, false}) {
            const KernelContext context{path.isa, exact, &pool};
            activation.args = ew::for_mode(activation.args, exact);  // as the node's mode sets it
            const std::size_t size = s.batch * s.out_channels * s.out_plane();
            std::vector<float> plain(size), fused(size);
            path.kernel(context, s, d.x.data(), packed.data(), d.b.data(), plain.data(), nullptr);
            path.kernel(context, s, d.x.data(), packed.data(), d.b.data(), fused.data(), &activation);
            for (float& v : plain) v = separate(v);
            EXPECT_EQ(conv_test::first_bit_difference(fused, plain), "")
                << c.describe() << " " << isa_name(path.isa) << (exact ? " exact" : " fast") << " threads " << threads;
          }
        }
      }
    }
  }
#else
  GTEST_SKIP() << "the direct stem kernel is x86-64 only";
#endif
}

// The selection rule: few input channels, one group, the AVX-512 path and its AVX2 twin
// (conv_stem.cpp, avx2_takes, whose measured rules differ).
TEST(ConvStem, SelectionRule) {
  Case stem;
  stem.in_h = stem.in_w = 224;
  stem.kh = stem.kw = 7;
  stem.sh = stem.sw = 2;
  stem.pt = stem.pl = stem.pb = stem.pr = 3;
  stem.cout = 64;
  const bool x86 =
#if defined(__x86_64__)
      true;
#else
      false;
#endif
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, stem.shape()), x86);
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, true, stem.shape()), x86);  // a stem in both modes
  // The AVX2 twin (conv_stem_avx2.cpp) takes stems in both modes; no other path has the kernel.
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, false, stem.shape()), x86);
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, true, stem.shape()), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Sse, false, stem.shape()));
  EXPECT_FALSE(conv_stem_takes(Isa::Scalar, false, stem.shape()));
  Case wide = stem;
  wide.cin = 16;  // K = 784: the product's case
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, wide.shape()));
  Case narrow = stem;
  narrow.in_w = 8;  // output rows of 1 column
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, narrow.shape()));
  Conv2dShape grouped = stem.shape();
  grouped.in_channels = 4;
  grouped.groups = 2;  // 32 filters a group over rows of 112: eight whole tiles of 14
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, grouped), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, grouped));  // exact mode: 16 filters a group only
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, false, grouped), x86);  // AVX2: 32 filters, 112 whole tiles of 14
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, true, grouped), x86);
  // Grouped (conv_stem.cpp, grouped_takes): 16 filters a group in both modes, 32 or 64 in fast
  // mode, rows that fill at least 85% of their column tiles, K <= 1152 a group, not depthwise.
  Case group16;
  group16.cin = 512;
  group16.cout = 512;
  group16.groups = 32;
  group16.in_h = group16.in_w = 14;
  group16.kh = group16.kw = 3;
  group16.pt = group16.pl = group16.pb = group16.pr = 1;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, group16.shape()), x86);
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, true, group16.shape()), x86);
  for (std::size_t width : {7, 17, 20}) {  // 7 of 16 columns, 17 or 20 of 32
    Case part = group16;
    part.in_w = width;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, part.shape())) << width;
  }
  Case group32 = group16;
  group32.cout = 1024;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, group32.shape()), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, group32.shape()));
  for (std::size_t width : {7, 20}) {  // 7 of 14 columns, 20 of 28
    Case part = group32;
    part.in_w = width;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, part.shape())) << width;
  }
  Case group8 = group16;
  group8.cout = 256;  // 8 filters a group: half a register
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, group8.shape()));
  // AVX2 (conv_stem.cpp, avx2_takes): 4 or 8 filters a group at any width, in both modes; 16 or
  // 32 when strided or over rows filling 85% of the tiles (14 columns, or 7 on maps at most 7
  // wide); not 24 or 64.
  for (bool exact : {false, true}) {
    EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, group8.shape()), x86);
    EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, group16.shape()), x86);
    Case group4 = group16;
    group4.cout = 128;
    EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, group4.shape()), x86);
    for (std::size_t width : {10, 20}) {  // 10 or 20 of 14 or 28 columns
      Case part = group16;
      part.in_h = part.in_w = width;
      EXPECT_FALSE(conv_stem_takes(Isa::Avx2, exact, part.shape())) << width;
      part.sh = part.sw = 2;  // strided: taken at any width
      EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, part.shape()), x86) << width;
      Case narrow8 = group8;
      narrow8.in_h = narrow8.in_w = width;
      EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, narrow8.shape()), x86) << width;
    }
    Case seven = group16;  // maps at most 7 wide: tiles of two rows of 7 columns
    seven.in_h = seven.in_w = 7;
    EXPECT_EQ(conv_stem_takes(Isa::Avx2, exact, seven.shape()), x86);
    Case group24 = group16;
    group24.cout = 768;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx2, exact, group24.shape()));
    Case group64 = group16;
    group64.cout = 2048;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx2, exact, group64.shape()));
  }
  Case group48 = group16;
  group48.cout = 1536;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, group48.shape()));
  Case long_group = group16;
  long_group.cin = 4128;  // 129 channels a group: K = 1161
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, long_group.shape()));
  Case depthwise = group16;
  depthwise.cout = 8192;
  depthwise.groups = 512;  // one channel a group, 16 filters each: the depthwise kernel's
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, depthwise.shape()));
  // Beyond stems (conv_stem.cpp): an unstrided 3x3 to 16, 32 or 64 channels over rows of 48 or more,
  // K <= 1152.
  Case dense;
  dense.cin = 128;
  dense.cout = 32;
  dense.in_h = dense.in_w = 56;
  dense.kh = dense.kw = 3;
  dense.pt = dense.pl = dense.pb = dense.pr = 1;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, dense.shape()), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Avx2, false, dense.shape()));
  EXPECT_FALSE(conv_stem_takes(Isa::Avx2, true, dense.shape()));
  // AVX2, one group, few filters (avx2_takes): K <= 288 and 8 filters, or up to 24 in exact mode.
  Case few = dense;
  few.cin = 16;
  few.cout = 8;
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, false, few.shape()), x86);
  few.cout = 16;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx2, false, few.shape()));
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, true, few.shape()), x86);
  few.cin = 64;  // K = 576
  EXPECT_FALSE(conv_stem_takes(Isa::Avx2, true, few.shape()));
  // One input channel only strided on AVX2 (the depthwise kernel wins unstrided).
  Case single = stem;
  single.cin = 1;
  EXPECT_EQ(conv_stem_takes(Isa::Avx2, false, single.shape()), x86);
  single.sh = single.sw = 1;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx2, false, single.shape()));
  // Whole registers of filters in fast mode (16, 32, 64), sixteen filters only in exact mode,
  // where the unfused sum of a longer row of accumulators is slower than the product's.
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, dense.shape()));
  for (std::size_t filters : {8, 24, 40, 48}) {
    Case part = dense;
    part.cout = filters;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, part.shape())) << filters;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, part.shape())) << filters;
  }
  Case sixteen = dense;
  sixteen.cout = 16;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, sixteen.shape()), x86);
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, true, sixteen.shape()), x86);
  Case sixty_four = dense;
  sixty_four.cin = 64;
  sixty_four.cout = 64;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, sixty_four.shape()), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, sixty_four.shape()));
  Case many_filters = dense;
  many_filters.cout = 65;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, many_filters.shape()));
  Case long_k = dense;
  long_k.cin = 129;  // K = 1161
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, long_k.shape()));
  // Rows under 48: in fast mode with 32 or 64 filters only rows of whole 14-column tiles (28, 42).
  Case short_rows = dense;
  short_rows.in_h = short_rows.in_w = 28;
  EXPECT_EQ(conv_stem_takes(Isa::Avx512, false, short_rows.shape()), x86);
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, true, short_rows.shape()));
  for (std::size_t width : {14, 20, 24, 32, 40}) {
    Case part_tile = dense;
    part_tile.in_h = part_tile.in_w = width;
    EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, part_tile.shape())) << width;
  }
  Case sixteen_short = short_rows;
  sixteen_short.cout = 16;  // tiles of 16 columns: 28 is not whole tiles of them
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, sixteen_short.shape()));
  Case strided = dense;
  strided.sh = strided.sw = 2;
  strided.in_h = strided.in_w = 112;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, strided.shape()));
  Case dilated = dense;
  dilated.dh = dilated.dw = 2;
  dilated.pt = dilated.pl = dilated.pb = dilated.pr = 2;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, dilated.shape()));
  Case pointwise = dense;
  pointwise.kh = pointwise.kw = 1;
  pointwise.pt = pointwise.pl = pointwise.pb = pointwise.pr = 0;
  EXPECT_FALSE(conv_stem_takes(Isa::Avx512, false, pointwise.shape()));
}

}  // namespace
}  // namespace onemodel::opt
