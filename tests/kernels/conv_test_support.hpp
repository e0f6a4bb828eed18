// Pieces shared by the conv and depthwise kernel tests (conv_test.cpp, depthwise_test.cpp): the
// window of a 2-D convolution and its Conv2dShape, random operands with special values, and the
// first bitwise difference between two outputs. Header-only: kernel tests do not link
// onemodel_test_support.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt::conv_test {

// The activation a convolution applies in its stores: op with its attributes, in fast or exact
// mode (the element-wise kernel's flavour, conv_activation_step.hpp).
inline ConvActivation store_activation(ew::UnaryOp op, float alpha, float beta, bool fast) {
  ConvActivation activation;
  activation.args.op = op;
  activation.args.alpha = alpha;
  activation.args.beta = beta;
  activation.args.fast = fast;
  return activation;
}

inline std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// The spatial part of a test case: input size, kernel, strides, dilations and pads
// (top, left, bottom, right).
struct Window {
  std::size_t in_h = 1, in_w = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  std::size_t pt = 0, pl = 0, pb = 0, pr = 0;

  // Conv needs the padded input to hold one dilated kernel.
  bool conv_valid() const { return in_h + pt + pb >= dh * (kh - 1) + 1 && in_w + pl + pr >= dw * (kw - 1) + 1; }
  // Everything but the output size.
  Conv2dShape shape_without_output(std::size_t batch, std::size_t in_channels, std::size_t out_channels,
                                   std::size_t groups) const {
    Conv2dShape s;
    s.batch = batch;
    s.in_channels = in_channels;
    s.out_channels = out_channels;
    s.groups = groups;
    s.in_h = in_h;
    s.in_w = in_w;
    s.kernel_h = kh;
    s.kernel_w = kw;
    s.stride_h = sh;
    s.stride_w = sw;
    s.dilation_h = dh;
    s.dilation_w = dw;
    s.pad_top = pt;
    s.pad_left = pl;
    return s;
  }
  // exact-mode.md "Convolution": floor((size + before + after - dilation*(K-1) - 1) / stride) + 1
  Conv2dShape conv_shape(std::size_t batch, std::size_t in_channels, std::size_t out_channels,
                         std::size_t groups) const {
    Conv2dShape s = shape_without_output(batch, in_channels, out_channels, groups);
    s.out_h = (in_h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
    s.out_w = (in_w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
    return s;
  }
};

// A 3x3 window with dilation `rate` and pads equal to it on a square map of `size` (DeepLabV3's
// ASPP branches: the tap-region and tap-by-tap tests).
inline Window dilated_3x3(std::size_t size, std::size_t rate) {
  Window w;
  w.in_h = w.in_w = size;
  w.kh = w.kw = 3;
  w.dh = w.dw = rate;
  w.pt = w.pl = w.pb = w.pr = rate;
  return w;
}

struct Data {
  std::vector<float> x, w, b;
};

// Uniform values in [-2, 2]; with `special`, about one value in `special_one_in` is NaN (either
// sign), an infinity, a signed zero, a subnormal, the largest float or a tiny normal.
inline Data random_data(std::size_t xs, std::size_t ws, std::size_t bs, std::uint32_t seed, bool special,
                        unsigned special_one_in) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -1.5e-39f,
                            std::numeric_limits<float>::max(),
                            1e-20f};
  auto value = [&]() {
    if (special && rng() % special_one_in == 0) return specials[rng() % 10];
    return dist(rng);
  };
  Data d;
  d.x.resize(xs);
  d.w.resize(ws);
  d.b.resize(bs);
  for (float& v : d.x) v = value();
  for (float& v : d.w) v = value();
  for (float& v : d.b) v = value();
  return d;
}

// "" when the first `expected.size()` elements of `got` have the bits of `expected`, else
// " element i: got vs expected" for the first that differs.
inline std::string first_bit_difference(const std::vector<float>& got, const std::vector<float>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (bits(got[i]) != bits(expected[i])) {
      return " element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(expected[i]);
    }
  }
  return "";
}

}  // namespace onemodel::opt::conv_test
