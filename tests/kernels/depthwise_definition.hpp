// The depthwise convolution's definition for the kernel tests (kernels-depthwise.md "What each
// output is", exact-mode.md "Convolution"), shared by the tests of the channel-blocked and the
// flattened-plane kernels: a case's shape, its random data and the naive loop.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "tests/kernels/conv_test_support.hpp"

namespace onemodel::opt::depthwise_test {

using conv_test::Data;

struct Case : conv_test::Window {
  std::size_t batch = 1, channels = 1, multiplier = 1;
  bool bias = false;
  Conv2dShape shape() const { return conv_shape(batch, channels, channels * multiplier, channels); }
  std::string describe() const {
    return "batch " + std::to_string(batch) + " C " + std::to_string(channels) + " mult " + std::to_string(multiplier) +
           " in " + std::to_string(in_h) + "x" + std::to_string(in_w) + " k " + std::to_string(kh) + "x" +
           std::to_string(kw) + " s " + std::to_string(sh) + "," + std::to_string(sw) + " d " + std::to_string(dh) +
           "," + std::to_string(dw) + " pads " + std::to_string(pt) + "," + std::to_string(pl) + "," +
           std::to_string(pb) + "," + std::to_string(pr) + (bias ? " bias" : "");
  }
};

// The input value tap (ky, kx) of output (oy, ox) reads in image n, input channel ic: +0 in the
// padding.
inline float tap_value(const Case& c, const Data& d, std::size_t n, std::size_t ic, std::size_t oy, std::size_t ox,
                       std::size_t ky, std::size_t kx) {
  const long iy = static_cast<long>(oy * c.sh + ky * c.dh) - static_cast<long>(c.pt);
  const long ix = static_cast<long>(ox * c.sw + kx * c.dw) - static_cast<long>(c.pl);
  const bool inside = iy >= 0 && iy < static_cast<long>(c.in_h) && ix >= 0 && ix < static_cast<long>(c.in_w);
  return inside ? d.x[((n * c.channels + ic) * c.in_h + iy) * c.in_w + ix] : 0.0f;
}

// The definition: +0, taps in row-major order, product rounded then sum rounded, padding a real
// +0; bias one rounded addition; NaN stored as 0x7FC00000. `value` and `magnitude`, when given,
// receive the same sum in double and sum |w*x| (fast mode's bound).
inline std::vector<float> naive(const Case& c, const Data& d, std::vector<double>* value,
                                         std::vector<double>* magnitude) {
  const Conv2dShape s = c.shape();
  std::vector<float> y;
  for (std::size_t n = 0; n < c.batch; ++n) {
    for (std::size_t oc = 0; oc < s.out_channels; ++oc) {
      const std::size_t ic = oc / c.multiplier;
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          volatile float acc = 0.0f;
          double wide = 0.0, mag = 0.0;
          for (std::size_t ky = 0; ky < c.kh; ++ky) {
            for (std::size_t kx = 0; kx < c.kw; ++kx) {
              const float v = tap_value(c, d, n, ic, oy, ox, ky, kx);
              const float wv = d.w[(oc * c.kh + ky) * c.kw + kx];
              volatile float product = wv * v;
              acc = acc + product;
              wide += static_cast<double>(wv) * v;
              mag += std::fabs(static_cast<double>(wv) * v);
            }
          }
          float out = acc;
          if (c.bias) {
            out = out + d.b[oc];
            wide += d.b[oc];
            mag += std::fabs(static_cast<double>(d.b[oc]));
          }
          if (std::isnan(out)) out = std::bit_cast<float>(std::uint32_t{0x7FC00000u});
          y.push_back(out);
          if (value != nullptr) value->push_back(wide);
          if (magnitude != nullptr) magnitude->push_back(mag);
        }
      }
    }
  }
  return y;
}

inline Data random_data(const Case& c, std::uint32_t seed, bool special) {
  return conv_test::random_data(c.batch * c.channels * c.in_h * c.in_w, c.channels * c.multiplier * c.kh * c.kw,
                                c.channels * c.multiplier, seed, special, 6);
}


// Fast mode's sequence per output (kernels-depthwise.md "What each output is"): +0, one fused
// multiply-add per tap in row-major order (std::fma, the hardware's fused operation on the paths
// that have one), the bias one rounded addition afterwards.
inline std::vector<float> naive_fused(const Case& c, const Data& d) {
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
              const float v = tap_value(c, d, n, ic, oy, ox, ky, kx);
              acc = std::fma(d.w[(oc * c.kh + ky) * c.kw + kx], v, acc);
            }
          }
          if (c.bias) acc = acc + d.b[oc];
          y.push_back(acc);
        }
      }
    }
  }
  return y;
}

}  // namespace onemodel::opt::depthwise_test
