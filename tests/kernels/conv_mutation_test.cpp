// conv2d_f32 (optimized/kernels/conv/) on geometries the sweeps of conv_test.cpp do not reach,
// against a naive loop written from exact-mode.md "Convolution" and spec/ops/products-conv.md
// section 6 (per output: from +0, over input channel, kernel row, kernel column, a rounded product
// then a rounded sum; NaN canonical; the bias added after, canonical), exact mode, bit for bit, on
// every path at 1 and 2 threads. Written for tools/mutate (issue 10): a pointwise convolution is
// read in place only when it really is a matrix product; a 1x1 kernel with a column stride and a
// right pad that keeps the output width equal to the input width is not one; and the bias of an
// output channel past the product's first tile row is that channel's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/kernels/float_bits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"

namespace {

using onemodel::test::bits;

using onemodel::opt::Conv2dShape;
using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;

float canonical(float v) {
  if (v == v) return v;
  const std::uint32_t u = 0x7FC00000u;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The output size of products-conv.md section 3: floor((in + pads - dilated kernel) / stride) + 1.
std::size_t out_size(std::size_t in, std::size_t pad_before, std::size_t pad_after, std::size_t kernel,
                     std::size_t stride, std::size_t dilation) {
  return (in + pad_before + pad_after - ((kernel - 1) * dilation + 1)) / stride + 1;
}

std::vector<float> naive(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w,
                         const std::vector<float>& b) {
  std::vector<float> y;
  const std::size_t cg = s.in_channels / s.groups, mg = s.out_channels / s.groups;
  for (std::size_t n = 0; n < s.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const std::size_t g = oc / mg;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          volatile float acc = 0.0f;
          for (std::size_t c = 0; c < cg; ++c) {
            for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
              for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
                const long iy = static_cast<long>(oy * s.stride_h + ky * s.dilation_h) - static_cast<long>(s.pad_top);
                const long ix = static_cast<long>(ox * s.stride_w + kx * s.dilation_w) - static_cast<long>(s.pad_left);
                const bool inside = iy >= 0 && iy < static_cast<long>(s.in_h) && ix >= 0 && ix < static_cast<long>(s.in_w);
                const float v = inside ? x[((n * s.in_channels + g * cg + c) * s.in_h + static_cast<std::size_t>(iy)) *
                                               s.in_w + static_cast<std::size_t>(ix)]
                                       : 0.0f;
                volatile float product = w[((oc * cg + c) * s.kernel_h + ky) * s.kernel_w + kx] * v;
                acc = acc + product;
              }
            }
          }
          float out = canonical(acc);
          if (!b.empty()) out = canonical(out + b[oc]);
          y.push_back(out);
        }
      }
    }
  }
  return y;
}

void check(Conv2dShape s, std::size_t pad_bottom, std::size_t pad_right, bool bias) {
  s.out_h = out_size(s.in_h, s.pad_top, pad_bottom, s.kernel_h, s.stride_h, s.dilation_h);
  s.out_w = out_size(s.in_w, s.pad_left, pad_right, s.kernel_w, s.stride_w, s.dilation_w);
  std::vector<float> x(s.batch * s.in_channels * s.in_plane());
  std::vector<float> w(s.out_channels * s.in_per_group() * s.taps());
  std::vector<float> b(bias ? s.out_channels : 0);
  std::uint32_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 1103515245u + 12345u;
    return static_cast<float>(static_cast<int>((seed >> 16) % 17) - 8) * 0.375f;
  };
  for (float& v : x) v = next();
  for (float& v : w) v = next();
  for (float& v : b) v = next();
  const std::vector<float> want = naive(s, x, w, b);
  for (Isa isa : onemodel::opt::available_isas()) {
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      const KernelContext context{isa, true, &pool};
      std::vector<float> workspace(onemodel::opt::conv2d_workspace_floats(s) + 1);
      std::vector<float> got(want.size(), -99.0f);
      onemodel::opt::conv2d_f32(context, s, x.data(), w.data(), bias ? b.data() : nullptr, got.data(),
                                workspace.data());
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(bits(got[i]), bits(want[i]))
            << "element " << i << " isa " << onemodel::opt::isa_name(isa) << " threads " << threads << " in "
            << s.in_h << "x" << s.in_w << " stride " << s.stride_h << "x" << s.stride_w << " pads " << s.pad_top
            << "," << s.pad_left << "," << pad_bottom << "," << pad_right;
      }
    }
  }
}

TEST(ConvMutation, PointwiseWithAColumnStrideIsNotAMatrixProduct) {
  // kernel 1x1, stride (1, 2), right pad in_w - 1: out_w = (2 in_w - 2) / 2 + 1 = in_w, yet output
  // column j reads input column 2j, or padding past the middle.
  for (std::size_t in_w : {3u, 5u, 8u}) {
    Conv2dShape s;
    s.in_channels = 3;
    s.out_channels = 4;
    s.in_h = 4;
    s.in_w = in_w;
    s.stride_w = 2;
    check(s, 0, in_w - 1, true);
  }
  // The same with the row stride.
  Conv2dShape s;
  s.in_channels = 2;
  s.out_channels = 3;
  s.in_h = 5;
  s.in_w = 6;
  s.stride_h = 2;
  check(s, 4, 0, false);
}

TEST(ConvMutation, PointwiseMatrixAndPaddedPointwise) {
  Conv2dShape s;
  s.batch = 2;
  s.in_channels = 5;
  s.out_channels = 7;
  s.in_h = 6;
  s.in_w = 9;
  check(s, 0, 0, true);  // a true matrix product, read in place
  s.pad_top = 1;
  s.pad_left = 1;
  check(s, 1, 1, true);  // padded: not one
}

// More output channels than one tile row of the product holds (MC is 64 or 96 on every path): the
// bias of a row in a later tile row is the bias of that row's channel, not of its place in the tile.
TEST(ConvMutation, BiasOfChannelsPastTheFirstTileRow) {
  Conv2dShape s;
  s.in_channels = 3;
  s.out_channels = 200;
  s.in_h = 5;
  s.in_w = 6;
  s.kernel_h = s.kernel_w = 3;
  s.pad_top = s.pad_left = 1;
  check(s, 1, 1, true);
}

}  // namespace
