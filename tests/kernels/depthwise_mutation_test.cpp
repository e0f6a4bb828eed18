// Fast mode of the depthwise convolution (optimized/kernels/conv/depthwise.cpp) on the geometries
// the vector walk does not take (more than 64 taps, or a column stride above 8: the fallback loop),
// against kernels-depthwise.md: "Fast mode: one fused multiply-add per tap where the hardware has
// it (AVX2+FMA, AVX-512, NEON), acc + w*x elsewhere. The bias, when present, is a separate pass:
// one rounded addition per output", with the same bits on every path of one machine. The expected
// values are a naive loop of std::fma (FMA paths) or of a rounded product and sum (the others).
// Written for tools/mutate (issue 10): a fallback that drops the fused operation passed every
// earlier test, which bounded fast mode by a tolerance only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/kernels/float_bits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_plane.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::test::bits;

using onemodel::opt::Conv2dShape;
using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> depthwise_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(onemodel::opt::depthwise_variants());
}

bool has_fma(Isa isa) { return isa == Isa::Avx2 || isa == Isa::Avx512 || isa == Isa::Neon; }

std::vector<float> naive_fast(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, bool fused) {
  std::vector<float> y;
  const std::size_t multiplier = s.out_channels / s.in_channels;
  for (std::size_t n = 0; n < s.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const float* plane = x.data() + (n * s.in_channels + oc / multiplier) * s.in_plane();
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          float acc = 0.0f;
          for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
            for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
              const long iy = static_cast<long>(oy * s.stride_h + ky * s.dilation_h) - static_cast<long>(s.pad_top);
              const long ix = static_cast<long>(ox * s.stride_w + kx * s.dilation_w) - static_cast<long>(s.pad_left);
              const bool inside = iy >= 0 && iy < static_cast<long>(s.in_h) && ix >= 0 && ix < static_cast<long>(s.in_w);
              const float v = inside ? plane[static_cast<std::size_t>(iy) * s.in_w + static_cast<std::size_t>(ix)] : 0.0f;
              const float wv = w[oc * s.taps() + ky * s.kernel_w + kx];
              if (fused) {
                acc = std::fma(wv, v, acc);
              } else {
                volatile float product = wv * v;
                acc = acc + product;
              }
            }
          }
          if (!b.empty()) acc = acc + b[oc];
          y.push_back(acc);
        }
      }
    }
  }
  return y;
}

void check(const Conv2dShape& s, bool bias) {
  std::vector<float> x(s.batch * s.in_channels * s.in_plane());
  std::vector<float> w(s.out_channels * s.taps());
  std::vector<float> b(bias ? s.out_channels : 0);
  std::uint32_t seed = 777;
  auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    // Values with long mantissas, so a fused and an unfused step round differently.
    return (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f) * 3.0f;
  };
  for (float& v : x) v = next();
  for (float& v : w) v = next();
  for (float& v : b) v = next();
  for (Isa isa : depthwise_variant_paths()) {
    const std::vector<float> want = naive_fast(s, x, w, b, has_fma(isa));
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      const KernelContext context{isa, false, &pool};
      std::vector<float> got(want.size(), -5.0f);
      onemodel::opt::depthwise_conv2d_f32(context, s, x.data(), w.data(), bias ? b.data() : nullptr, got.data());
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(bits(got[i]), bits(want[i])) << "element " << i << " isa " << onemodel::opt::isa_name(isa)
                                               << " threads " << threads << " taps " << s.taps() << " stride_w "
                                               << s.stride_w;
      }
    }
  }
}

Conv2dShape shape(std::size_t k, std::size_t stride_w, std::size_t pad, std::size_t in) {
  Conv2dShape s;
  s.batch = 2;
  s.in_channels = s.out_channels = s.groups = 3;
  s.in_h = s.in_w = in;
  s.kernel_h = s.kernel_w = k;
  s.stride_w = stride_w;
  s.pad_top = s.pad_left = pad;
  s.out_h = (in + 2 * pad - k) / s.stride_h + 1;
  s.out_w = (in + 2 * pad - k) / stride_w + 1;
  return s;
}

TEST(DepthwiseMutation, FastFallbackIsOneFusedStepPerTapWhereTheHardwareHasIt) {
  check(shape(9, 1, 4, 12), true);    // 81 taps
  check(shape(9, 1, 0, 11), false);
  check(shape(3, 9, 1, 30), true);    // column stride 9
  Conv2dShape multiplier = shape(9, 1, 2, 10);
  multiplier.out_channels = 6;        // channel multiplier 2
  check(multiplier, true);
}

TEST(DepthwiseMutation, FastVectorWalkIsOneFusedStepPerTapWhereTheHardwareHasIt) {
  check(shape(3, 1, 1, 37), true);    // every vector width and the tail
  check(shape(5, 2, 2, 21), false);
  check(shape(3, 1, 1, 5), true);     // narrower than a vector
}

// The direct kernels the walk hands shapes to (depthwise_stride1.hpp, depthwise_stride2.hpp,
// depthwise_blocked.hpp; on AVX-512 and AVX2) make one fused multiply-add per tap in fast mode, in
// row-major tap order from +0, the bias one rounded addition after: the plane walk's bits. Row
// widths around the 8- and 16-lane vectors, pads on either side, channel counts around the 8- and
// 16-channel blocks.
Conv2dShape padded(std::size_t channels, std::size_t in_h, std::size_t in_w, std::size_t k, std::size_t stride,
                   std::size_t pad_left, std::size_t pad_right) {
  Conv2dShape s;
  s.batch = 1;
  s.in_channels = s.out_channels = s.groups = channels;
  s.in_h = in_h;
  s.in_w = in_w;
  s.kernel_h = s.kernel_w = k;
  s.stride_h = s.stride_w = stride;
  s.pad_top = pad_right;  // the rows padded the other way round (pad_left after)
  s.pad_left = pad_left;
  s.out_h = (in_h + pad_right + pad_left - k) / stride + 1;
  s.out_w = (in_w + pad_left + pad_right - k) / stride + 1;
  return s;
}

TEST(DepthwiseMutation, FastDirectKernelsAreOneFusedStepPerTapWhereTheHardwareHasIt) {
  for (std::size_t k : {3u, 5u}) {  // stride 2: rows of 9 to 40 outputs
    for (std::size_t in_w : {17u, 18u, 19u, 20u, 23u, 24u, 31u, 33u, 34u, 47u, 63u, 80u}) {
      check(padded(2, 9, in_w, k, 2, in_w % 3 == 0 ? 0 : k / 2, in_w % 2), in_w % 2 == 0);
    }
  }
  for (std::size_t in_w : {64u, 65u, 70u, 72u, 79u, 81u}) check(padded(2, 7, in_w, 3, 1, 1, in_w % 3), true);
  for (std::size_t in_w : {16u, 17u, 22u, 23u, 24u, 25u, 31u, 40u}) {  // 7x7 unstrided: rows of 16 to 40
    check(padded(2, 9, in_w, 7, 1, in_w % 2 == 0 ? 3 : 6, in_w % 2 == 0 ? 3 : 0), in_w % 3 == 0);
  }
  for (std::size_t channels : {1u, 7u, 8u, 9u, 17u}) {  // the channel-blocked kernel: narrow rows
    check(padded(channels, 7, 7, 5, 1, 2, 2), true);
    check(padded(channels, 14, 14, 3, 2, 0, 1), false);
    check(padded(channels, 12, 12, 7, 1, 3, 3), channels % 2 == 1);
  }
}

}  // namespace
