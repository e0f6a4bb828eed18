// The geometry of one 2-D convolution (NCHW), resolved: what every convolution kernel in this
// folder takes. Padding is given by its start (top, left); the end padding is implied by the
// output size (exact-mode.md "Convolution": out = floor((size + padBefore + padAfter -
// dilation*(K-1) - 1) / stride) + 1, computed by the operator from its attributes).
#pragma once

#include <cstddef>

namespace onemodel::opt {

struct Conv2dShape {
  std::size_t batch = 1;
  std::size_t in_channels = 1;   // Cin (all groups)
  std::size_t out_channels = 1;  // Cout (all groups)
  std::size_t groups = 1;
  std::size_t in_h = 1, in_w = 1;
  std::size_t kernel_h = 1, kernel_w = 1;
  std::size_t stride_h = 1, stride_w = 1;
  std::size_t dilation_h = 1, dilation_w = 1;
  std::size_t pad_top = 0, pad_left = 0;
  std::size_t out_h = 1, out_w = 1;

  std::size_t in_plane() const noexcept { return in_h * in_w; }
  std::size_t out_plane() const noexcept { return out_h * out_w; }
  std::size_t taps() const noexcept { return kernel_h * kernel_w; }
  std::size_t in_per_group() const noexcept { return in_channels / groups; }
  std::size_t out_per_group() const noexcept { return out_channels / groups; }
  // The rows and columns of the zero-padded input that the windows reach (kernels-depthwise.md
  // "Phase planes"): the last window's start plus its dilated extent.
  std::size_t padded_h() const noexcept { return (out_h - 1) * stride_h + (kernel_h - 1) * dilation_h + 1; }
  std::size_t padded_w() const noexcept { return (out_w - 1) * stride_w + (kernel_w - 1) * dilation_w + 1; }
  // Whether the input and output extents and the leading pads are all below `limit`: the kernels
  // that read rows in place with 32-bit lane offsets (the in-place depthwise kernels, the stem)
  // take a shape only far below that range.
  bool map_extents_below(std::size_t limit) const noexcept {
    return in_w < limit && in_h < limit && out_w < limit && out_h < limit && pad_left < limit && pad_top < limit;
  }
};

}  // namespace onemodel::opt
