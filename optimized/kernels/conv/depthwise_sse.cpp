// The SSE4.1 path of the depthwise plane walk (kernels-depthwise.md): 4 lanes of neighbouring
// output columns; outputs narrower than 4 columns use the scalar twin. SSE has no fused
// multiply-add, so fast mode is acc + w*x here.
#include <immintrin.h>

#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {
namespace {

struct SseLanes {
  using V = __m128;
  static constexpr std::size_t kWidth = 4;
  static V zero() noexcept { return _mm_setzero_ps(); }
  static V set1(float v) noexcept { return _mm_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm_add_ps(acc, _mm_mul_ps(w, x)); }
  // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
  static V canonical(V v) noexcept {
    return _mm_blendv_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_cmpunord_ps(v, v));
  }
};

}  // namespace

void depthwise_plane_sse(const DepthwisePlaneJob& job) {
  if (job.out_w >= SseLanes::kWidth) {
    depthwise_detail::walk_plane<SseLanes>(job);
  } else {
    depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<false>>(job);
  }
}

void depthwise_phase_rows_sse(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                              std::size_t rows, float* out, std::size_t out_step) {
  depthwise_detail::copy_phase_rows<SseLanes>(src, src_step, stride, count, rows, out, out_step);
}

}  // namespace onemodel::opt
