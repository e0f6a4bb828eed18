// Window geometry shared by Conv, ConvInteger and the pooling operators (spec/ops/products-conv.md
// section 3, from ops-conv.md "Output sizes"): reading kernel_shape, strides, dilations, pads,
// auto_pad and ceil_mode, and the output size and before/after padding of each spatial axis. One,
// two or three spatial axes are lifted to three (leading axes of extent 1, kernel 1, no padding).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/shape.hpp"

namespace onemodel::conv_geometry {

inline constexpr int kLifted = 3;

struct Axis {
  std::int64_t in = 1;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t dilation = 1;
  std::int64_t pad_before = 0;
  std::int64_t pad_after = 0;
  std::int64_t out = 1;
  // dilation * (kernel - 1) + 1
  std::int64_t effective() const noexcept { return dilation * (kernel - 1) + 1; }
};

struct WindowAttributes {
  std::string auto_pad = "NOTSET";
  std::vector<std::int64_t> kernel;  // empty: from the weight's shape (Conv)
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> dilations;
  std::vector<std::int64_t> pads;
  bool ceil_mode = false;
};

inline WindowAttributes read_window_attributes(const NodeInfo& node, bool kernel_required) {
  WindowAttributes w;
  w.auto_pad = node.get_string("auto_pad", "NOTSET");
  if (w.auto_pad != "NOTSET" && w.auto_pad != "SAME_UPPER" && w.auto_pad != "SAME_LOWER" && w.auto_pad != "VALID") {
    node.fail_invalid("auto_pad '" + w.auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  if (kernel_required) {
    w.kernel = node.get_ints("kernel_shape");
    if (w.kernel.empty()) node.fail_invalid("attribute 'kernel_shape' is required");
  } else {
    w.kernel = node.get_ints("kernel_shape");
  }
  w.strides = node.get_ints("strides");
  w.dilations = node.get_ints("dilations");
  w.pads = node.get_ints("pads");
  w.ceil_mode = node.get_int("ceil_mode", 0) != 0;
  for (std::int64_t k : w.kernel) {
    if (k < 1 || k > kMaxElements) node.fail_invalid("kernel_shape entry " + std::to_string(k) + " is not positive");
  }
  for (std::int64_t s : w.strides) {
    if (s < 1 || s > kMaxElements) node.fail_invalid("stride " + std::to_string(s) + " is not positive");
  }
  for (std::int64_t d : w.dilations) {
    if (d < 1 || d > kMaxElements) node.fail_invalid("dilation " + std::to_string(d) + " is not positive");
  }
  for (std::int64_t p : w.pads) {
    if (p < 0 || p > kMaxElements) node.fail_invalid("pad " + std::to_string(p) + " is negative or too large");
  }
  return w;
}

// spec/ops/products-conv.md section 3: the output size and padding of each spatial axis, lifted to
// three axes. `spatial_in` are the input's spatial extents, `kernel` the kernel extents (from the
// attribute or the weight). Throws InvalidModel when the lists disagree in length or a window does
// not fit.
inline std::vector<Axis> resolve_axes(const NodeInfo& node, const WindowAttributes& w,
                                      std::span<const std::int32_t> spatial_in, std::span<const std::int64_t> kernel) {
  const std::size_t r = spatial_in.size();
  if (r < 1 || r > static_cast<std::size_t>(kLifted)) {
    node.fail_unsupported(std::to_string(r) + " spatial axes (1 to 3 are handled)");
  }
  if (kernel.size() != r) node.fail_invalid("kernel has " + std::to_string(kernel.size()) + " axes, input " + std::to_string(r));
  if (!w.strides.empty() && w.strides.size() != r) node.fail_invalid("strides has the wrong length");
  if (!w.dilations.empty() && w.dilations.size() != r) node.fail_invalid("dilations has the wrong length");
  if (!w.pads.empty() && w.pads.size() != 2 * r) node.fail_invalid("pads has the wrong length");
  std::vector<Axis> axes(kLifted);
  const std::size_t lift = static_cast<std::size_t>(kLifted) - r;
  for (std::size_t i = 0; i < r; ++i) {
    Axis& a = axes[lift + i];
    a.in = spatial_in[i];
    a.kernel = kernel[i];
    a.stride = w.strides.empty() ? 1 : w.strides[i];
    a.dilation = w.dilations.empty() ? 1 : w.dilations[i];
    const std::int64_t e = a.effective();  // < 2^62: both factors are below 2^31
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      // out = ceil(n / s); total padding max(0, (out - 1) * s + e - n); the odd element after the
      // input for SAME_UPPER, before it for SAME_LOWER.
      a.out = (a.in + a.stride - 1) / a.stride;
      const std::int64_t total = std::max<std::int64_t>(0, (a.out - 1) * a.stride + e - a.in);
      if (w.auto_pad == "SAME_UPPER") {
        a.pad_before = total / 2;
        a.pad_after = total - a.pad_before;
      } else {
        a.pad_after = total / 2;
        a.pad_before = total - a.pad_after;
      }
      continue;
    }
    if (w.auto_pad == "NOTSET" && !w.pads.empty()) {
      a.pad_before = w.pads[i];
      a.pad_after = w.pads[i + r];
    }
    const std::int64_t span = a.in + a.pad_before + a.pad_after;
    if (span < e) {
      node.fail_invalid("window of " + std::to_string(e) + " does not fit the padded extent " + std::to_string(span));
    }
    if (w.ceil_mode) {
      a.out = (span - e + a.stride - 1) / a.stride + 1;
      // The last window would start entirely in the end padding.
      if ((a.out - 1) * a.stride >= a.in + a.pad_before) a.out -= 1;
    } else {
      a.out = (span - e) / a.stride + 1;
    }
  }
  return axes;
}

// The output shape [N, C, out...] for an input shape [N, C, spatial...] and `channels` output
// channels.
inline Shape output_shape(const NodeInfo& node, const Shape& in, std::int64_t channels, const std::vector<Axis>& axes) {
  std::vector<std::int64_t> extents{in[0], channels};
  const int r = in.rank() - 2;
  for (int i = 0; i < r; ++i) {
    const std::int64_t out = axes[static_cast<std::size_t>(kLifted - r + i)].out;
    if (out > kMaxElements) node.fail_unsupported("output extent beyond the library's limits");
    extents.push_back(out);
  }
  return Shape(std::span<const std::int64_t>(extents));
}

}  // namespace onemodel::conv_geometry
