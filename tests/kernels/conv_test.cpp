// im2col, col2im, conv2d_f32 and conv_transpose2d_f32 (optimized/kernels/conv/) against naive
// loops written from exact-mode.md "Convolution" and spec/ops/products-conv.md sections 6-7:
// exact mode bit for bit on every path this machine has at 1 and 2 threads, with NaN, infinities,
// signed zeros and subnormals; fast mode within k*u*sum|a*b| + 1e-30 of double
// (kernels-gemm.md "Fast mode").
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/conv/conv_bias_rows.hpp"
#include "optimized/kernels/conv/im2col.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using onemodel::opt::PackedA;
using conv_test::Data;
float canonical_nan() { return std::bit_cast<float>(std::uint32_t{0x7FC00000u}); }

struct Geometry : conv_test::Window {
  std::size_t batch = 1, cin = 1, cout = 1, groups = 1;
  bool bias = false;

  Conv2dShape conv() const { return conv_shape(batch, cin, cout, groups); }
  // ConvTranspose: s*(n-1) + e - b - a (products-conv.md section 7, no output_padding).
  bool transpose_valid() const {
    return sh * (in_h - 1) + dh * (kh - 1) + 1 >= pt + pb && sw * (in_w - 1) + dw * (kw - 1) + 1 >= pl + pr;
  }
  Conv2dShape transpose() const {
    Conv2dShape s = shape_without_output(batch, cin, cout, groups);
    s.out_h = sh * (in_h - 1) + dh * (kh - 1) + 1 - pt - pb;
    s.out_w = sw * (in_w - 1) + dw * (kw - 1) + 1 - pl - pr;
    return s;
  }
  std::string describe() const {
    std::string out;
    const std::pair<const char*, std::size_t> parts[] = {
        {"N", batch}, {" Cin", cin}, {" Cout", cout}, {" G", groups}, {" in_h", in_h}, {" in_w", in_w},
        {" kh", kh},  {" kw", kw},   {" sh", sh},     {" sw", sw},    {" dh", dh},     {" dw", dw},
        {" pt", pt},  {" pl", pl},   {" pb", pb},     {" pr", pr},    {" bias", bias ? 1u : 0u}};
    for (const auto& [name, v] : parts) {
      out.append(name);
      out.append(std::to_string(v));
    }
    return out;
  }
};

// exact-mode.md "Convolution", literally; the bias afterwards, one rounded addition
// (products-conv.md section 6). Also the double sum and sum |w*v| for the fast bound.
void naive_conv(const Geometry& g, const Data& d, std::vector<float>& exact, std::vector<double>& value,
                std::vector<double>& magnitude) {
  const Conv2dShape s = g.conv();
  const std::size_t cg = g.cin / g.groups, mg = g.cout / g.groups;
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oc = 0; oc < g.cout; ++oc) {
      const std::size_t grp = oc / mg;
      for (std::size_t y = 0; y < s.out_h; ++y) {
        for (std::size_t x = 0; x < s.out_w; ++x) {
          volatile float acc = 0.0f;
          double sum = 0.0, mag = 0.0;
          for (std::size_t c = 0; c < cg; ++c) {
            for (std::size_t ky = 0; ky < g.kh; ++ky) {
              for (std::size_t kx = 0; kx < g.kw; ++kx) {
                const long iy = static_cast<long>(y * g.sh + ky * g.dh) - static_cast<long>(g.pt);
                const long ix = static_cast<long>(x * g.sw + kx * g.dw) - static_cast<long>(g.pl);
                const bool inside =
                    iy >= 0 && iy < static_cast<long>(g.in_h) && ix >= 0 && ix < static_cast<long>(g.in_w);
                const float v =
                    inside ? d.x[((n * g.cin + grp * cg + c) * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                 static_cast<std::size_t>(ix)]
                           : 0.0f;
                const float wv = d.w[((oc * cg + c) * g.kh + ky) * g.kw + kx];
                volatile float product = wv * v;
                acc = acc + product;
                sum += static_cast<double>(wv) * v;
                mag += std::fabs(static_cast<double>(wv) * v);
              }
            }
          }
          float out = acc;
          if (std::isnan(out)) out = canonical_nan();
          if (g.bias) {
            out = out + d.b[oc];
            if (std::isnan(out)) out = canonical_nan();
            sum += d.b[oc];
            mag += std::fabs(static_cast<double>(d.b[oc]));
          }
          exact.push_back(out);
          value.push_back(sum);
          magnitude.push_back(mag);
        }
      }
    }
  }
}

// products-conv.md section 7: col[(ocl, tap), pos] as an exact sum over c, canonical; then each
// output from +0 adds the col values landing on it in increasing tap order; bias last.
void naive_transpose(const Geometry& g, const Data& d, std::vector<float>& exact, std::vector<double>& value,
                     std::vector<double>& magnitude) {
  const Conv2dShape s = g.transpose();
  const std::size_t cg = g.cin / g.groups, mg = g.cout / g.groups, taps = g.kh * g.kw;
  exact.assign(g.batch * g.cout * s.out_plane(), 0.0f);
  value.assign(exact.size(), 0.0);
  magnitude.assign(exact.size(), 0.0);
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oc = 0; oc < g.cout; ++oc) {
      const std::size_t grp = oc / mg, ocl = oc % mg;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          volatile float acc = 0.0f;
          double sum = 0.0, mag = 0.0;
          for (std::size_t ky = 0; ky < g.kh; ++ky) {
            for (std::size_t kx = 0; kx < g.kw; ++kx) {
              const long ty = static_cast<long>(oy + g.pt) - static_cast<long>(ky * g.dh);
              const long tx = static_cast<long>(ox + g.pl) - static_cast<long>(kx * g.dw);
              if (ty < 0 || tx < 0 || ty % static_cast<long>(g.sh) != 0 || tx % static_cast<long>(g.sw) != 0) continue;
              const std::size_t iy = static_cast<std::size_t>(ty) / g.sh, ix = static_cast<std::size_t>(tx) / g.sw;
              if (iy >= g.in_h || ix >= g.in_w) continue;
              volatile float col = 0.0f;
              for (std::size_t c = 0; c < cg; ++c) {
                const std::size_t ch = grp * cg + c;
                const float xv = d.x[((n * g.cin + ch) * g.in_h + iy) * g.in_w + ix];
                const float wv = d.w[(ch * mg + ocl) * taps + ky * g.kw + kx];
                volatile float product = wv * xv;
                col = col + product;
                sum += static_cast<double>(wv) * xv;
                mag += std::fabs(static_cast<double>(wv) * xv);
              }
              float cv = col;
              if (std::isnan(cv)) cv = canonical_nan();
              acc = acc + cv;
            }
          }
          float out = acc;
          if (std::isnan(out)) out = canonical_nan();
          if (g.bias) {
            out = out + d.b[oc];
            if (std::isnan(out)) out = canonical_nan();
            sum += d.b[oc];
            mag += std::fabs(static_cast<double>(d.b[oc]));
          }
          const std::size_t o = ((n * g.cout + oc) * s.out_h + oy) * s.out_w + ox;
          exact[o] = out;
          value[o] = sum;
          magnitude[o] = mag;
        }
      }
    }
  }
}

// packed: the weights packed once (conv2d_pack_weights), so the product fills the im2col strips
// from the image itself (conv2d_f32 with packed weights), as sessions run a Conv.
std::vector<float> run(const Geometry& g, bool transpose, const Data& d, Isa isa, bool exact, ThreadPool* pool,
                       bool packed = false) {
  const Conv2dShape s = transpose ? g.transpose() : g.conv();
  std::vector<float> y(g.batch * g.cout * s.out_plane(), 777.0f);
  std::vector<float> work(transpose ? conv_transpose2d_workspace_floats(s) : conv2d_workspace_floats(s), 555.0f);
  const KernelContext context{isa, exact, pool};
  const float* bias = g.bias ? d.b.data() : nullptr;
  if (transpose) {
    conv_transpose2d_f32(context, s, d.x.data(), d.w.data(), bias, y.data(), work.data());
  } else if (packed) {
    const std::vector<PackedA> weights = conv2d_pack_weights(isa, s, d.w.data());
    std::vector<float> none(conv2d_workspace_floats(s, true) + 1);
    conv2d_f32(context, s, d.x.data(), nullptr, bias, y.data(), none.data(), nullptr, weights.data());
  } else {
    conv2d_f32(context, s, d.x.data(), d.w.data(), bias, y.data(), work.data());
  }
  return y;
}

// "" when every path at 1 and 2 threads gives the naive exact bits, and fast stays in the bound.
std::string check(const Geometry& g, bool transpose, std::uint32_t seed, bool special, bool packed = false) {
  const Conv2dShape s = transpose ? g.transpose() : g.conv();
  const std::size_t wsize = transpose ? g.cin * (g.cout / g.groups) * g.kh * g.kw : g.cout * (g.cin / g.groups) * g.kh * g.kw;
  const Data d = conv_test::random_data(g.batch * g.cin * g.in_h * g.in_w, wsize, g.cout, seed, special, 8);
  std::vector<float> expected;
  std::vector<double> value, magnitude;
  if (transpose) {
    naive_transpose(g, d, expected, value, magnitude);
  } else {
    naive_conv(g, d, expected, value, magnitude);
  }
  const std::string what = std::string(transpose ? "ConvTranspose " : "Conv ") + g.describe();
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>((g.cin / g.groups) * g.kh * g.kw + (g.bias ? 1 : 0) + (transpose ? g.kh * g.kw : 0));
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  for (Isa isa : available_isas()) {
    for (ThreadPool* pool : {&one, &two}) {
      const std::string difference =
          conv_test::first_bit_difference(run(g, transpose, d, isa, true, pool, packed), expected);
      if (!difference.empty()) {
        return what + " exact isa " + std::string(isa_name(isa)) + " threads " + std::to_string(pool->threads()) +
               difference;
      }
    }
    if (special) continue;
    const std::vector<float> fast1 = run(g, transpose, d, isa, false, &one, packed);
    const std::vector<float> fast2 = run(g, transpose, d, isa, false, &two, packed);
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!(std::fabs(fast1[i] - value[i]) <= terms * u * magnitude[i] + 1e-30)) {
        return what + " fast isa " + std::string(isa_name(isa)) + " element " + std::to_string(i) + " out of bound";
      }
      if (bits(fast1[i]) != bits(fast2[i])) return what + " fast differs between 1 and 2 threads";
    }
  }
  (void)s;
  return "";
}

TEST(Im2col, RowsMatchTheDefinitionAndChunksCompose) {
  Geometry g;
  g.cin = 3;
  g.in_h = 7;
  g.in_w = 9;
  g.kh = 3;
  g.kw = 2;
  g.sh = 2;
  g.sw = 3;
  g.dh = 2;
  g.dw = 1;
  g.pt = 2;
  g.pl = 1;
  g.pb = 3;
  g.pr = 4;
  const Conv2dShape s = g.conv();
  std::vector<float> x(g.cin * g.in_h * g.in_w);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  const std::size_t k = g.cin * g.kh * g.kw;
  std::vector<float> col(k * s.out_plane(), -1.0f);
  // Built in pieces (chunk boundaries at odd rows) must equal the definition.
  im2col_rows_f32(s, x.data(), 0, 5, col.data());
  im2col_rows_f32(s, x.data(), 5, k, col.data());
  for (std::size_t c = 0; c < g.cin; ++c) {
    for (std::size_t ky = 0; ky < g.kh; ++ky) {
      for (std::size_t kx = 0; kx < g.kw; ++kx) {
        for (std::size_t oy = 0; oy < s.out_h; ++oy) {
          for (std::size_t ox = 0; ox < s.out_w; ++ox) {
            const long iy = static_cast<long>(oy * g.sh + ky * g.dh) - static_cast<long>(g.pt);
            const long ix = static_cast<long>(ox * g.sw + kx * g.dw) - static_cast<long>(g.pl);
            const bool inside = iy >= 0 && iy < static_cast<long>(g.in_h) && ix >= 0 && ix < static_cast<long>(g.in_w);
            const float want = inside ? x[(c * g.in_h + iy) * g.in_w + ix] : 0.0f;
            const std::size_t row = (c * g.kh + ky) * g.kw + kx;
            ASSERT_EQ(bits(col[row * s.out_plane() + oy * s.out_w + ox]), bits(want)) << row << " " << oy << " " << ox;
          }
        }
      }
    }
  }
}

// The strips the matrix product fills from the image (im2col_strip_f32, conv2d_f32 with packed
// weights) equal the stored matrix's columns (im2col_rows_f32), +0 past `valid`: every strip
// start, strip widths of every path's NR, k-block splits inside a channel, strides, dilations,
// asymmetric padding, maps narrower and wider than a strip; with every path's filler
// (each listed variant, im2col_list.inc, on its own path: the AVX-512 one copies with masked
// vectors, strips of 32 at strides 1 and 2, the AVX2 one strips of 16 at stride 1).
// The fillers' registry list has the form docs/design.md ("Kernel registry") states, and every
// filler this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(Im2colRegistry, ListFormAndDispatch) {
  kernel_tests::expect_registry_form(im2col_variants(), "f32_im2col");
  EXPECT_FALSE(kernel_tests::variant_paths(im2col_variants()).empty());
}

TEST(Im2col, StripsMatchTheStoredMatrix) {
  struct Case {
    std::size_t cin, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  };
  for (const Case& c : {Case{3, 7, 9, 3, 2, 2, 3, 2, 1, 2, 1, 3, 4}, Case{2, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                        Case{4, 3, 40, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1}, Case{1, 12, 2, 1, 5, 1, 1, 1, 2, 0, 4, 0, 4},
                        Case{5, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, Case{2, 4, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                        Case{2, 6, 37, 3, 3, 2, 1, 2, 3, 2, 3, 1, 0}, Case{1, 3, 70, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},
                        Case{2, 5, 80, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, Case{2, 9, 23, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
                        // No padding on a map narrower than a strip: each strip crosses several
                        // output rows whose pieces read the input at different offsets.
                        Case{2, 7, 7, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
                        // One row high (a Conv over one axis): many taps, padding beyond the row,
                        // dilation, rows shorter and longer than a strip.
                        Case{3, 1, 49, 1, 128, 1, 1, 1, 1, 0, 64, 0, 64}, Case{2, 1, 70, 1, 9, 1, 1, 1, 3, 0, 5, 0, 2},
                        Case{2, 1, 20, 1, 70, 1, 1, 1, 1, 0, 40, 0, 35}, Case{1, 1, 100, 1, 10, 1, 5, 1, 1, 0, 0, 0, 0}}) {
    Geometry g;
    g.cin = c.cin;
    g.in_h = c.h;
    g.in_w = c.w;
    g.kh = c.kh;
    g.kw = c.kw;
    g.sh = c.sh;
    g.sw = c.sw;
    g.dh = c.dh;
    g.dw = c.dw;
    g.pt = c.pt;
    g.pl = c.pl;
    g.pb = c.pb;
    g.pr = c.pr;
    ASSERT_TRUE(g.conv_valid()) << g.describe();
    const Conv2dShape s = g.conv();
    std::vector<float> x(g.cin * g.in_h * g.in_w);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
    const std::size_t k = g.cin * g.kh * g.kw, n = s.out_plane();
    std::vector<float> col(k * n);
    im2col_rows_f32(s, x.data(), 0, k, col.data());
    for (std::size_t nr : {4u, 8u, 16u, 32u}) {
      for (std::size_t p0 : {std::size_t{0}, std::size_t{1}, k / 2}) {
        const std::size_t kc = k - p0;
        for (std::size_t col0 = 0; col0 < n; col0 += nr) {
          const std::size_t valid = std::min(nr, n - col0);
          for (Isa isa : kernel_tests::variant_paths(im2col_variants())) {
            std::vector<float> strip(kc * nr, -7.0f);
            im2col_strip_for(isa)(s, x.data(), p0, kc, col0, valid, nr, strip.data());
            for (std::size_t p = 0; p < kc; ++p) {
              for (std::size_t j = 0; j < nr; ++j) {
                const float want = j < valid ? col[(p0 + p) * n + col0 + j] : 0.0f;
                ASSERT_EQ(bits(strip[p * nr + j]), bits(want)) << g.describe() << " " << isa_name(isa) << " nr " << nr
                                                               << " p0 " << p0 << " col " << col0 << " p " << p
                                                               << " j " << j;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Conv2d, ExactAndFastSweep) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.ExactAndFastSweep");
  std::uint32_t seed = 1;
  for (std::size_t groups : {1u, 2u}) {
    for (std::size_t k : {1u, 2u, 3u}) {
      for (std::size_t stride : {1u, 2u}) {
        for (std::size_t pad : {0u, 1u}) {
          for (std::size_t in : {1u, 5u, 12u}) {
            Geometry g;
            g.batch = 1 + (in % 2);
            g.groups = groups;
            g.cin = 2 * groups + (groups == 1 ? 1 : 0);
            g.cout = 3 * groups;
            g.in_h = in;
            g.in_w = in + 3;
            g.kh = g.kw = k;
            g.sh = g.sw = stride;
            g.pt = g.pl = g.pb = g.pr = pad;
            g.bias = ((k + in) % 2) == 0;
            if (!g.conv_valid()) continue;
            ASSERT_EQ(check(g, false, seed++, false), "");
          }
        }
      }
    }
  }
}

TEST(Conv2d, PointwiseReadsTheInputDirectly) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.PointwiseReadsTheInputDirectly");
  Geometry g;
  g.batch = 2;
  g.cin = 19;
  g.cout = 7;
  g.in_h = 6;
  g.in_w = 11;
  g.bias = true;
  EXPECT_EQ(conv2d_workspace_floats(g.conv()), 0u);
  EXPECT_EQ(check(g, false, 11, false), "");
  EXPECT_EQ(check(g, false, 12, true), "");
}

// k = 0 (no input channels): every output is +0, then the bias (exact-mode.md: k = 0 gives +0).
TEST(Conv2d, NoInputChannelsGivePlusZeroAndBias) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.NoInputChannelsGivePlusZeroAndBias");
  Geometry g;
  g.cin = 0;
  g.cout = 3;
  g.in_h = 4;
  g.in_w = 5;
  g.kh = g.kw = 3;
  g.pt = g.pl = g.pb = g.pr = 1;
  for (bool bias : {false, true}) {
    g.bias = bias;
    EXPECT_EQ(check(g, false, 70, false), "");
    EXPECT_EQ(check(g, true, 71, false), "");
  }
}

TEST(Conv2d, SpecialValuesCanonicalNaN) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.SpecialValuesCanonicalNaN");
  std::uint32_t seed = 50;
  for (std::size_t groups : {1u, 3u}) {
    Geometry g;
    g.groups = groups;
    g.cin = 6;
    g.cout = 6;
    g.in_h = 6;
    g.in_w = 10;
    g.kh = g.kw = 3;
    g.pt = g.pl = g.pb = g.pr = 1;
    g.bias = true;
    EXPECT_EQ(check(g, false, seed++, true), "");
    g.dh = 2;
    g.sw = 2;
    EXPECT_EQ(check(g, false, seed++, true), "");
  }
}

// Large enough that the pool wakes the second thread.
TEST(Conv2d, ThreadIndependentOnLargerShapes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.ThreadIndependentOnLargerShapes");
  Geometry g;
  g.cin = 32;
  g.cout = 40;
  g.in_h = g.in_w = 20;
  g.kh = g.kw = 3;
  g.pt = g.pl = g.pb = g.pr = 1;
  g.bias = true;
  EXPECT_EQ(check(g, false, 60, false), "");
  EXPECT_EQ(check(g, false, 61, true), "");
}

// Packed weights, so B strips are filled from the image per tile (or whole when a small map needs
// narrow bands), against the naive sum on every path at 1 and 2 threads: maps wide enough for tiles
// of 128 columns (a small map gets tiles of one strip, gemm.cpp tile_width), so the AVX-512 exact
// pair kernel runs, with a ragged strip; m with a ragged last A strip (the short kernel); k over
// one 256 block; stride 2 (the strided filler); m over one 96-row tile in one band of rows and
// over 264 rows in two bands (sourced_band_shape: 300 filters make bands of 156 and 144 rows).
TEST(Conv2d, PackedWeightsExactEqualsTheNaiveSum) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.PackedWeightsExactEqualsTheNaiveSum");
  struct Case {
    std::size_t cin, cout, h, w, stride;
  };
  std::uint32_t seed = 200;
  for (const Case& c : {Case{32, 29, 30, 30, 1}, Case{8, 24, 61, 60, 2}, Case{4, 100, 20, 26, 1},
                        Case{32, 300, 20, 26, 1}}) {
    Geometry g;
    g.cin = c.cin;
    g.cout = c.cout;
    g.in_h = c.h;
    g.in_w = c.w;
    g.kh = g.kw = 3;
    g.sh = g.sw = c.stride;
    g.pt = g.pl = g.pb = g.pr = 1;
    g.bias = true;
    ASSERT_TRUE(g.conv_valid());
    EXPECT_EQ(check(g, false, seed++, false, true), "");
    EXPECT_EQ(check(g, false, seed++, true, true), "");
  }
}

// Small groups run one chunk per image and group (conv2d.cpp, runs_group_chunks), each group's
// product on its chunk's thread: a 3x3 convolution in 8 groups of 8 channels (RegNet's shape at a
// smaller map) with packed weights, 2 images, so chunks cross images; and a grouped 1x1
// convolution read in place, unpacked weights. Against the naive sum at 1 and 2 threads.
TEST(Conv2d, SmallGroupsAsChunksExactEqualsTheNaiveSum) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.SmallGroupsAsChunksExactEqualsTheNaiveSum");
  Geometry g;
  g.batch = 2;
  g.cin = 64;
  g.cout = 64;
  g.groups = 8;
  g.in_h = g.in_w = 14;
  g.kh = g.kw = 3;
  g.pt = g.pl = g.pb = g.pr = 1;
  g.bias = true;
  ASSERT_TRUE(g.conv_valid());
  EXPECT_EQ(check(g, false, 300, false, true), "");
  EXPECT_EQ(check(g, false, 301, true, true), "");
  Geometry pointwise;
  pointwise.batch = 2;
  pointwise.cin = 32;
  pointwise.cout = 48;
  pointwise.groups = 4;
  pointwise.in_h = pointwise.in_w = 10;
  pointwise.bias = true;
  ASSERT_TRUE(pointwise.conv_valid());
  EXPECT_EQ(check(pointwise, false, 302, false), "");
  EXPECT_EQ(check(pointwise, false, 303, true), "");
}

// A batch runs one chunk per image where the threads divide it (conv2d.cpp, runs_image_chunks),
// each image's product on its chunk's thread alone: 4 images (2 chunks a thread at two threads)
// and 3 (not divided: the images one after the other, each product shared), packed weights, a 3x3
// layer whose strips are filled from each image and a 1x1 layer read in place with filters over
// one 96-row tile (its band path). Against the naive sum at 1 and 2 threads: a chunk that read or
// wrote another image's planes fails.
TEST(Conv2d, ImagesAsChunksExactEqualsTheNaiveSum) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.ImagesAsChunksExactEqualsTheNaiveSum");
  // A convolution with a bias, square kernels padded to keep the map.
  const auto layer = [](std::size_t batch, std::size_t cin, std::size_t cout, std::size_t h, std::size_t w,
                        std::size_t kernel) {
    Geometry g;
    g.batch = batch;
    g.cin = cin;
    g.cout = cout;
    g.in_h = h;
    g.in_w = w;
    g.kh = g.kw = kernel;
    g.pt = g.pl = g.pb = g.pr = kernel / 2;
    g.bias = true;
    return g;
  };
  std::uint32_t seed = 400;
  for (std::size_t batch : {4, 3}) {
    for (const Geometry& g : {layer(batch, 24, 40, 9, 11, 3), layer(batch, 16, 112, 6, 7, 1)}) {
      ASSERT_TRUE(g.conv_valid());
      EXPECT_EQ(check(g, false, seed++, false, true), "");
      EXPECT_EQ(check(g, false, seed++, true, true), "");
    }
  }
}

// The fused epilogue (conv_bias_epilogue.hpp): bias, then a residual Add and Relu as the conv
// activation, or Relu alone, on maps small enough that a tile spans whole output planes (7 x 7 and
// 5 x 3 with more filters than positions, so tile_shape cuts rows into bands and keeps every
// column: one activation call for all of a tile's rows) and on a 12 x 12 map (a call per row),
// packed weights and not, 1 and 2 threads. Exact mode against the naive sum followed by the Add
// and the Relu written out here (exact-mode.md rule 4: every NaN canonical), residual first or
// second; fast mode against the same kernel without the activation (its bias step alone) followed
// by the Add and the Relu written out here, so the one-pass AVX-512 epilogue
// (conv_bias_residual_relu_rows__avx512) is held to the separate steps' bits in both modes.
TEST(Conv2d, FusedResidualAndReluOnWholePlaneTiles) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.FusedResidualAndReluOnWholePlaneTiles");
  struct Case {
    std::size_t cin, cout, h, w, k;
  };
  enum class Residual { None, Second, First };
  const auto add_and_relu = [](float conv, float extra, Residual residual) {
    volatile float sum = residual == Residual::First ? extra + conv : conv + extra;
    const float v = residual == Residual::None ? conv : static_cast<float>(sum);
    return std::isnan(v) ? canonical_nan() : (v > 0.0f ? v : 0.0f);
  };
  std::uint32_t seed = 400;
  for (const Case& c : {Case{48, 200, 7, 7, 1}, Case{32, 100, 5, 3, 3}, Case{16, 26, 12, 12, 3}}) {
    Geometry g;
    g.batch = 2;
    g.cin = c.cin;
    g.cout = c.cout;
    g.in_h = c.h;
    g.in_w = c.w;
    g.kh = g.kw = c.k;
    g.pt = g.pl = g.pb = g.pr = c.k / 2;
    g.bias = true;
    ASSERT_TRUE(g.conv_valid());
    const Conv2dShape s = g.conv();
    const Data d = conv_test::random_data(g.batch * g.cin * g.in_h * g.in_w, g.cout * g.cin * g.kh * g.kw, g.cout,
                                          seed++, true, 8);
    const Data extra = conv_test::random_data(g.batch * g.cout * s.out_plane(), 1, 1, seed++, true, 8);
    std::vector<float> conv;
    std::vector<double> unused_value, unused_magnitude;
    naive_conv(g, d, conv, unused_value, unused_magnitude);
    for (const Residual residual : {Residual::None, Residual::Second, Residual::First}) {
      ConvActivation fused;
      fused.residual = residual == Residual::None ? nullptr : extra.x.data();
      fused.residual_first = residual == Residual::First;
      fused.args.op = ew::UnaryOp::Relu;
      ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
      for (const Isa isa : available_isas()) {
        const std::vector<PackedA> weights = conv2d_pack_weights(isa, s, d.w.data());
        for (ThreadPool* pool : {&one, &two}) {
          for (const bool packed : {false, true}) {
            for (const bool exact : {true, false}) {
              const auto run = [&](const ConvActivation* activation) {
                std::vector<float> y(conv.size(), 777.0f);
                std::vector<float> work(conv2d_workspace_floats(s, packed) + 1, 555.0f);
                conv2d_f32(KernelContext{isa, exact, pool}, s, d.x.data(), packed ? nullptr : d.w.data(), d.b.data(),
                           y.data(), work.data(), activation, packed ? weights.data() : nullptr);
                return y;
              };
              // Exact: the naive sum; fast: this kernel's own sum with the bias alone.
              const std::vector<float> sum = exact ? conv : run(nullptr);
              std::vector<float> want(sum.size());
              for (std::size_t i = 0; i < sum.size(); ++i) want[i] = add_and_relu(sum[i], extra.x[i], residual);
              EXPECT_EQ(conv_test::first_bit_difference(run(&fused), want), "")
                  << g.describe() << " isa " << isa_name(isa) << " threads " << pool->threads() << " packed " << packed
                  << " residual " << static_cast<int>(residual) << (exact ? " exact" : " fast");
            }
          }
        }
      }
    }
  }
}

#if defined(__x86_64__)
// The one-pass epilogue alone (conv_bias_residual_activation_rows__avx512 and __avx2, one body over
// two lane types) on every pairing of special values, against the three steps written out: the
// bias and the residual each one rounded addition, then the activation as spec/ops/elementwise.md
// has it (Relu x > 0 ? x : +0; Clip: below lo -> lo, then above hi -> hi; LeakyRelu x < 0 ?
// alpha * x : x, the product rounded; HardSwish x * clamp(x * 0.16666667 + 0.5, 0, 1), each step
// rounded; SiLU, exact and fast, by the path's separate Sigmoid and Mul kernels), every NaN
// 0x7FC00000. -0 + -0 + -0 is -0, which Relu makes +0 and Clip(-0, 6) keeps; NaN payloads of
// either sign end canonical; infinities of opposite signs make NaN; subnormals stay. Rows of 1 to
// 41 values (around the 8- and 16-lane blocks: whole vectors and masked tails), rows a stride of
// cols + 3 apart (the values between rows must stay), residual rows a plane apart, and a 1 x 1
// map's column of rows (epilogue_blocks), with and without a residual; each path the machine runs.
namespace {

struct EpiloguePath {
  Isa isa;
  void (*one_pass)(float*, std::ptrdiff_t, const float*, const float*, std::size_t, std::size_t, std::size_t,
                   const ConvActivation&);
  void (*bias_only)(float*, std::ptrdiff_t, const float*, std::size_t, std::size_t, bool);
};

std::vector<EpiloguePath> epilogue_paths() {
  std::vector<EpiloguePath> paths;
  for (const EpiloguePath& p : {EpiloguePath{Isa::Avx512, conv_bias_residual_activation_rows__avx512, conv_bias_rows__avx512},
                                EpiloguePath{Isa::Avx2, conv_bias_residual_activation_rows__avx2, conv_bias_rows__avx2}}) {
    if (kernel_tests::machine_runs(p.isa)) {
      paths.push_back(p);
    } else {
      std::printf("[ SKIPPED  ] the one-pass epilogue on %s: this CPU lacks it\n", std::string(isa_name(p.isa)).c_str());
    }
  }
  return paths;
}

const std::vector<float>& epilogue_specials() {
  static const std::vector<float> specials = {-0.0f, 0.0f, 1.5f, -1.5f, std::numeric_limits<float>::infinity(),
                                              -std::numeric_limits<float>::infinity(), std::bit_cast<float>(0x7FC12345u),
                                              std::bit_cast<float>(0xFF812345u), 1e-45f, -1e-45f, 3.0e38f, -2.0f, 6.0f,
                                              7.5f};
  return specials;
}

const std::size_t kEpilogueCols[] = {1, 5, 7, 8, 9, 15, 16, 17, 21, 24, 31, 32, 33, 41};

// The blocks the epilogue tests run: rows of every width above a stride of cols + 3 (the values
// between rows must stay), residual rows 50 apart; then a 1 x 1 map's column (one value per row,
// rows next to each other, residual rows 1 apart: the squeeze-and-excitation convolutions), of 7,
// 41 and 50 rows (shorter than a vector, whole vectors and a tail on both paths).
struct EpilogueBlock {
  std::size_t rows, cols, ldc, plane;
};

std::vector<EpilogueBlock> epilogue_blocks() {
  std::vector<EpilogueBlock> blocks;
  for (const std::size_t cols : kEpilogueCols) blocks.push_back({epilogue_specials().size(), cols, cols + 3, 50});
  for (const std::size_t rows : {7u, 41u, 50u}) blocks.push_back({rows, 1, 1, 1});
  return blocks;
}

}  // namespace

TEST(Conv2d, BiasResidualActivationRowsMatchTheSteps) {
  const std::vector<EpiloguePath> paths = epilogue_paths();
  if (paths.empty()) GTEST_SKIP() << "neither AVX-512 nor AVX2 on this machine";
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float>& specials = epilogue_specials();
  struct Activation {
    ew::UnaryOp op;
    float alpha, beta;
    bool fast = false;
  };
  const auto activate = [](Isa isa, const Activation& a, float v) {
    float r = v;
    if (a.op == ew::UnaryOp::Silu) {
      // The separate nodes' kernels: Sigmoid (fast or exact as the node's mode), then the Mul.
      float gate = 0.0f, product = 0.0f;
      ew::unary_f32_run(isa, ew::for_mode(ew::UnaryArgs{ew::UnaryOp::Sigmoid}, !a.fast), &v, &gate, 1);
      ew::binary_f32_run(isa, ew::BinaryOp::Mul, &v, 1, &gate, 1, &product, 1);
      return product;
    }
    if (a.op == ew::UnaryOp::HardSwish) {  // x * clamp(x * 0.16666667 + 0.5, 0, 1), each step rounded
      float gate = v * 0.16666667f;
      gate = gate + 0.5f;
      gate = gate < 0.0f ? 0.0f : gate;
      gate = gate > 1.0f ? 1.0f : gate;
      r = v * gate;
    } else if (a.op == ew::UnaryOp::Relu) {
      r = v > 0.0f ? v : 0.0f;
    } else if (a.op == ew::UnaryOp::Clip) {
      r = v < a.alpha ? a.alpha : v;
      r = r > a.beta ? a.beta : r;
    } else {
      volatile float product = a.alpha * v;
      r = v < 0.0f ? static_cast<float>(product) : v;
    }
    return std::isnan(v) || std::isnan(r) ? canonical_nan() : r;  // Relu drops a NaN input's value
  };
  for (const EpiloguePath& path : paths) {
    for (const EpilogueBlock& block : epilogue_blocks()) {
      const std::size_t rows = block.rows, cols = block.cols, ldc = block.ldc, plane = block.plane;
      for (const Activation& a : {Activation{ew::UnaryOp::Relu, 0.0f, 0.0f}, Activation{ew::UnaryOp::Clip, -0.0f, 6.0f},
                                  Activation{ew::UnaryOp::Clip, -1.0f, 1.5f}, Activation{ew::UnaryOp::LeakyRelu, 0.1f, 0.0f},
                                  Activation{ew::UnaryOp::LeakyRelu, inf, 0.0f},
                                  Activation{ew::UnaryOp::HardSwish, 0.0f, 0.0f},
                                  Activation{ew::UnaryOp::Silu, 0.0f, 0.0f, false},
                                  Activation{ew::UnaryOp::Silu, 0.0f, 0.0f, true}}) {
        for (const bool with_residual : {false, true}) {
          std::vector<float> c(rows * ldc, 99.0f), residual(rows * plane, 5.0f), want(rows * ldc, 99.0f);
          std::vector<float> bias(rows);
          for (std::size_t r = 0; r < rows; ++r) {
            bias[r] = specials[(r + r / specials.size()) % specials.size()];  // past the list: other pairings
            for (std::size_t j = 0; j < cols; ++j) {
              c[r * ldc + j] = specials[(r + j) % specials.size()];
              residual[r * plane + j] = specials[(r * 5 + j * 7) % specials.size()];
              volatile float v = c[r * ldc + j] + bias[r];
              if (with_residual) v = v + residual[r * plane + j];
              want[r * ldc + j] = activate(path.isa, a, v);
            }
          }
          const ConvActivation activation = conv_test::store_activation(a.op, a.alpha, a.beta, a.fast);
          ASSERT_TRUE(activation_fuses_in_store(&activation));
          path.one_pass(c.data(), static_cast<std::ptrdiff_t>(ldc), bias.data(), with_residual ? residual.data() : nullptr,
                        plane, rows, cols, activation);
          EXPECT_EQ(conv_test::first_bit_difference(c, want), "")
              << isa_name(path.isa) << " rows " << rows << " cols " << cols << " ldc " << ldc << " op " << static_cast<int>(a.op) << " alpha " << a.alpha
              << " beta " << a.beta << " fast " << a.fast << " residual " << with_residual;
        }
      }
    }
  }
}

// The bias step alone (conv_bias_rows__avx512 and __avx2) on the same values: one rounded
// addition, in exact mode every NaN then 0x7FC00000; in fast mode a NaN keeps a payload (the sum's
// where both are NaN, as vaddps gives its first operand's), so fast mode requires the same value
// or, where the expected value is NaN, a NaN.
TEST(Conv2d, BiasRowsMatchTheStep) {
  const std::vector<EpiloguePath> paths = epilogue_paths();
  if (paths.empty()) GTEST_SKIP() << "neither AVX-512 nor AVX2 on this machine";
  const std::vector<float>& specials = epilogue_specials();
  for (const EpiloguePath& path : paths) {
    for (const EpilogueBlock& block : epilogue_blocks()) {
      const std::size_t rows = block.rows, cols = block.cols, ldc = block.ldc;
      for (const bool exact : {true, false}) {
        std::vector<float> c(rows * ldc, 99.0f), want(rows * ldc, 99.0f), bias(rows);
        for (std::size_t r = 0; r < rows; ++r) {
          bias[r] = specials[(r + r / specials.size()) % specials.size()];  // past the list: other pairings
          for (std::size_t j = 0; j < cols; ++j) {
            c[r * ldc + j] = specials[(r + j) % specials.size()];
            const volatile float v = c[r * ldc + j] + bias[r];
            want[r * ldc + j] = exact && std::isnan(v) ? canonical_nan() : v;
          }
        }
        path.bias_only(c.data(), static_cast<std::ptrdiff_t>(ldc), bias.data(), rows, cols, exact);
        for (std::size_t i = 0; i < c.size(); ++i) {
          const bool same = bits(c[i]) == bits(want[i]) || (!exact && std::isnan(want[i]) && std::isnan(c[i]));
          ASSERT_TRUE(same) << isa_name(path.isa) << " rows " << rows << " cols " << cols << (exact ? " exact" : " fast") << " at " << i
                            << ": " << std::hex << bits(c[i]) << " want " << bits(want[i]);
        }
      }
    }
  }
}
#endif

TEST(ConvTranspose2d, ExactAndFastSweep) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("ConvTranspose2d.ExactAndFastSweep");
  std::uint32_t seed = 100;
  for (std::size_t groups : {1u, 2u}) {
    for (std::size_t k : {1u, 2u, 3u}) {
      for (std::size_t stride : {1u, 2u, 3u}) {
        for (std::size_t pad : {0u, 1u}) {
          for (std::size_t dil : {1u, 2u}) {
            Geometry g;
            g.groups = groups;
            g.batch = 1 + pad;
            g.cin = 2 * groups;
            g.cout = 3 * groups;
            g.in_h = 4;
            g.in_w = 5 + k;
            g.kh = k;
            g.kw = k + 1;
            g.sh = stride;
            g.sw = 1 + (stride % 2);
            g.dh = dil;
            g.dw = 1;
            g.pt = g.pl = pad;
            g.pb = g.pr = pad + (k > 1 ? 1 : 0);
            g.bias = (k % 2) == 1;
            if (!g.transpose_valid()) continue;
            ASSERT_EQ(check(g, true, seed++, false), "");
            ASSERT_EQ(check(g, true, seed++, true), "");
          }
        }
      }
    }
  }
}

TEST(ConvTranspose2d, ThreadIndependentOnLargerShapes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("ConvTranspose2d.ThreadIndependentOnLargerShapes");
  Geometry g;
  g.cin = 48;
  g.cout = 32;
  g.in_h = g.in_w = 16;
  g.kh = g.kw = 4;
  g.sh = g.sw = 2;
  g.pt = g.pl = g.pb = g.pr = 1;
  g.bias = true;
  EXPECT_EQ(check(g, true, 150, false), "");
  EXPECT_EQ(check(g, true, 151, true), "");
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(Conv2d, GeneratedShapes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("Conv2d.GeneratedShapes");
  const bool ok = rc::check("conv2d and conv_transpose2d equal the naive definitions", [] {
    Geometry g;
    g.groups = *rc::gen::inRange<std::size_t>(1, 4);
    g.cin = g.groups * *rc::gen::inRange<std::size_t>(1, 4);
    g.cout = g.groups * *rc::gen::inRange<std::size_t>(1, 4);
    g.batch = *rc::gen::inRange<std::size_t>(1, 3);
    g.kh = *rc::gen::inRange<std::size_t>(1, 4);
    g.kw = *rc::gen::inRange<std::size_t>(1, 4);
    g.sh = *rc::gen::inRange<std::size_t>(1, 4);
    g.sw = *rc::gen::inRange<std::size_t>(1, 4);
    g.dh = *rc::gen::inRange<std::size_t>(1, 3);
    g.dw = *rc::gen::inRange<std::size_t>(1, 3);
    g.pt = *rc::gen::inRange<std::size_t>(0, 3);
    g.pl = *rc::gen::inRange<std::size_t>(0, 3);
    g.pb = *rc::gen::inRange<std::size_t>(0, 3);
    g.pr = *rc::gen::inRange<std::size_t>(0, 3);
    g.in_h = *rc::gen::inRange<std::size_t>(1, 12);
    g.in_w = *rc::gen::inRange<std::size_t>(1, 20);
    g.bias = *rc::gen::arbitrary<bool>();
    const bool transpose = *rc::gen::arbitrary<bool>();
    const bool valid = transpose ? g.transpose_valid() : g.conv_valid();
    RC_PRE(valid);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const bool special = *rc::gen::arbitrary<bool>();
    RC_ASSERT(check(g, transpose, seed, special) == "");
  });
  EXPECT_TRUE(ok);
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

}  // namespace
}  // namespace onemodel::opt
