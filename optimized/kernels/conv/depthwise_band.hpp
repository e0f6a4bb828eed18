// The band kernel of the AVX2 walk for square 3x3 and 5x5 windows: at stride 2 over the split
// band buffer (depthwise.cpp walk_split_bands, docs/design.md "Stride-2 phase planes by bands"),
// unstrided over the padded plane (or the input plane itself when there is no padding). The
// generic walk (depthwise_lanes.hpp) reads each tap at src + tap_offsets[t] + column: run-time
// offsets, so every load took an address computation or two, and with 8 accumulators and 9 weights
// in 16 registers its tile spilled. Here the phase planes are two pointers and each tap a
// compile-time column shift (tap kx is phase kx % stride, column + kx / stride). Zen 3, one
// thread, against the walk on the same buffer: 3x3/2 at 112 1.02-1.05x faster in fast mode and
// 1.11-1.13x in exact mode, 5x5/2 at 56 1.12-1.14x fast and 1.03x exact; unstrided see
// docs/design.md. Every output is the walk's sequence (+0, taps in row-major order, one fused
// multiply-add each in fast mode, an unfused product and sum in exact mode, the bias one addition
// after, canonical NaN in exact mode): the same bits.
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// One band: out_h output rows, whose input rows start at row 0 of the phase planes.
struct DepthwiseBandJob {
  const float* planes[2] = {nullptr, nullptr};  // phase planes of the band, row 0 = first input row
  std::size_t stride = 0;                       // floats between rows
  std::size_t kernel = 3;                       // 3 or 5, square, no dilation
  std::size_t step = 2;                         // the stride, both ways: 2, or 1 (planes[0] only)
  const float* weights = nullptr;
  const float* bias = nullptr;
  float* out = nullptr;
  std::size_t out_h = 0, out_w = 0;  // out_w >= 8
  bool exact = false;
  // An activation the stores apply (fused_activation_avx2.hpp, the element-wise pass's bits), or
  // null; the caller passes only one activation_fuses_in_store allows, without a residual.
  const ConvActivation* activation = nullptr;
};

#if defined(__x86_64__)
// Requires AVX2+FMA and out_w >= 8.
void depthwise_band__avx2(const DepthwiseBandJob& job) noexcept;
#endif

}  // namespace onemodel::opt
