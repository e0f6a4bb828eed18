// One output plane of the depthwise kernel, as the per-path files compute it
// (kernels-depthwise.md "Layout of the work"). The driver (depthwise.cpp) lays the zero-padded
// input out as phase planes and gives each tap's offset into them, so every tap of output
// (oy, ox) is src[tap_offsets[t] + oy * row_step + ox]: contiguous in ox for any stride.
#pragma once

#include <cstddef>

namespace onemodel::opt {

inline constexpr std::size_t kDepthwiseMaxTaps = 64;  // more taps: the fallback loop
inline constexpr std::size_t kDepthwiseMaxColumnStride = 8;

struct DepthwisePlaneJob {
  const float* src = nullptr;
  const std::ptrdiff_t* tap_offsets = nullptr;  // taps entries, row-major tap order
  const float* weights = nullptr;               // taps entries, same order
  std::size_t taps = 0;
  std::ptrdiff_t row_step = 0;  // src elements between output rows (stride_h * plane width)
  std::size_t out_h = 0, out_w = 0;
  float* out = nullptr;         // out_h * out_w, row-major
  const float* bias = nullptr;  // one value, or nullptr
  bool exact = false;
};

void depthwise_plane_scalar(const DepthwisePlaneJob& job);
#if defined(__x86_64__)
void depthwise_plane_sse(const DepthwisePlaneJob& job);
void depthwise_plane_avx2(const DepthwisePlaneJob& job);
void depthwise_plane_avx512(const DepthwisePlaneJob& job);
#endif
#if defined(__aarch64__)
void depthwise_plane_neon(const DepthwisePlaneJob& job);
#endif
#if defined(__wasm_simd128__)
void depthwise_plane_wasm(const DepthwisePlaneJob& job);
#endif

}  // namespace onemodel::opt
