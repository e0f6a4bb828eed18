// The one-axis strip walk shared by the AVX2 and AVX-512 strip fillers (im2col_strip_*.cpp): a
// Conv over one spatial axis, lifted to a map one row high, unstrided. Row (c, kx) of the strip is
// input row c read from column col + kx * dw - pl on, its lanes masked to the columns inside the
// input; no tap table, so any number of taps (the positional convolution of wav2vec 2.0 and
// HuBERT has 128, past kIm2colMaxTaps, where the generic filler found each tap's range anew, with
// divisions, for every row). The same floats as im2col_strip_f32. Each filler passes its own copy
// of one masked 16-column line; the walk and the lane arithmetic are here once.
//
// Internal linkage: each instruction-set file compiles its own copy with its own flags, and a
// shared inline definition could let the linker keep an AVX-512 copy for the AVX2 path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "optimized/kernels/conv/conv2d_shape.hpp"

namespace onemodel::opt {
namespace {

// Whether a strip takes the one-axis walk: whole strips (Width columns: 16 on AVX2, 32 on
// AVX-512) of a one-row, unstrided map.
template <std::size_t Width>
[[gnu::always_inline]] inline bool im2col_one_axis_applies(const Conv2dShape& s, std::size_t valid,
                                                           std::size_t nr) noexcept {
  return nr == Width && valid <= Width && s.taps() > 0 && s.in_h == 1 && s.out_h == 1 &&
         s.kernel_h == 1 && s.pad_top == 0 && s.stride_w == 1;
}

// copy_line(dst, row, offset, mask): dst[j] = row[offset + j] where bit j of mask is set, else 0,
// for j < Width.
template <std::size_t Width, class CopyLine>
[[gnu::always_inline]] inline void im2col_fill_one_axis(const Conv2dShape& s, const float* x_group, std::size_t p0,
                                                        std::size_t kc, std::size_t col, std::size_t valid,
                                                        float* out, CopyLine copy_line) noexcept {
  const std::size_t tap_count = s.kernel_w;
  const std::ptrdiff_t in_w = static_cast<std::ptrdiff_t>(s.in_w), count = static_cast<std::ptrdiff_t>(valid);
  const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(col) - static_cast<std::ptrdiff_t>(s.pad_left);
  const std::ptrdiff_t dilation = static_cast<std::ptrdiff_t>(s.dilation_w);
  std::size_t c = p0 / tap_count, kx = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    // Lane j reads input column offset + j where that lies in [0, in_w) and j < valid.
    const std::ptrdiff_t offset = start + static_cast<std::ptrdiff_t>(kx) * dilation;
    const std::ptrdiff_t lo = std::clamp<std::ptrdiff_t>(-offset, 0, count);
    const std::ptrdiff_t hi = std::clamp<std::ptrdiff_t>(in_w - offset, lo, count);
    const std::uint32_t mask = static_cast<std::uint32_t>(((std::uint64_t{1} << (hi - lo)) - 1u) << lo);
    copy_line(out + p * Width, x_group + c * s.in_w, offset, mask);
    if (++kx == tap_count) {
      kx = 0;
      ++c;
    }
  }
}

}  // namespace
}  // namespace onemodel::opt
