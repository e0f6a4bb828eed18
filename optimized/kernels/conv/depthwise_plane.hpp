// One output plane of the depthwise kernel, as the per-path files compute it
// (kernels-depthwise.md "Layout of the work"). The driver (depthwise.cpp) lays the zero-padded
// input out as phase planes and gives each tap's offset into them, so every tap of output
// (oy, ox) is src[tap_offsets[t] + oy * row_step + ox]: contiguous in ox for any stride.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

namespace onemodel::opt {

inline constexpr std::size_t kDepthwiseMaxTaps = 64;  // more taps: the fallback loop
inline constexpr std::size_t kDepthwiseMaxColumnStride = 8;

struct DepthwisePlaneJob {
  const float* src = nullptr;
  const std::ptrdiff_t* tap_offsets = nullptr;  // taps entries, row-major tap order
  const float* weights = nullptr;               // taps entries, same order
  std::size_t taps = 0;
  std::ptrdiff_t row_step = 0;  // src elements between output rows (stride_h * plane width)
  // The window's geometry, for the fixed-window tiles (depthwise_lanes.hpp): the plane width
  // (src elements between input rows), the kernel's extent, the row stride and row dilation.
  std::ptrdiff_t width = 0;
  std::size_t kernel_h = 0, kernel_w = 0, stride_h = 0, dilation_h = 0;
  std::size_t out_h = 0, out_w = 0;
  float* out = nullptr;         // out_h * out_w, row-major
  const float* bias = nullptr;  // one value, or nullptr
  bool exact = false;
};

// depthwise_phase_rows_<suffix>: the input part of `rows` rows of a phase plane,
// out[r * out_step + j] = src[r * src_step + j * stride] for j < count (kernels-depthwise.md
// "Phase planes"; only data moves). Built with the path's instructions: the
// generic loop compiled without them ran at about a value per cycle for stride 2 and took as long
// as the walk itself on 112 x 112 maps.
#define ONEMODEL_DW_VARIANT(suffix, isa, fma, name)              \
  void depthwise_plane_##suffix(const DepthwisePlaneJob& job); \
  void depthwise_phase_rows_##suffix(const float* src, std::size_t src_step, std::size_t stride, std::size_t count, \
                                     std::size_t rows, float* out, std::size_t out_step);
#include "optimized/kernels/conv/depthwise_list.inc"

using DepthwisePlaneFn = void (*)(const DepthwisePlaneJob& job);
using DepthwisePhaseRowsFn = void (*)(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                                      std::size_t rows, float* out, std::size_t out_step);

// One variant of the family (kernel_registry.hpp), from depthwise_list.inc.
struct DepthwiseVariant {
  std::string_view name;
  Isa isa;
  bool fused_multiply_add;  // the path has FMA: fast mode's multiply-adds are fused
  DepthwisePlaneFn plane;
  DepthwisePhaseRowsFn phase_rows;
};

// The registry: every variant this build has, best first, scalar last. (The channel-blocked
// AVX-512 kernel, depthwise_blocked.hpp, is chosen by shape on top of it.)
std::span<const DepthwiseVariant> depthwise_variants() noexcept;

}  // namespace onemodel::opt
