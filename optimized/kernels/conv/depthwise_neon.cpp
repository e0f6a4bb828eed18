// The NEON path of the depthwise plane walk (kernels-depthwise.md): 4 lanes of neighbouring
// output columns; outputs narrower than 4 columns use the scalar twin. Fast mode: one fused
// multiply-add per tap (vfmaq_f32, and std::fma in the twin: aarch64 always has fmadd).
#include <arm_neon.h>

#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {
namespace {

struct NeonLanes {
  using V = float32x4_t;
  static constexpr std::size_t kWidth = 4;
  static V zero() noexcept { return vdupq_n_f32(0.0f); }
  static V set1(float v) noexcept { return vdupq_n_f32(v); }
  static V load(const float* p) noexcept { return vld1q_f32(p); }
  static void store(float* p, V v) noexcept { vst1q_f32(p, v); }
  static V add(V a, V b) noexcept { return vaddq_f32(a, b); }
  static V mul(V a, V b) noexcept { return vmulq_f32(a, b); }
  static V madd(V acc, V w, V x) noexcept { return vfmaq_f32(acc, w, x); }
  // exact-mode.md rule 4: NaN lanes (not equal to themselves) become 0x7FC00000.
  static V canonical(V v) noexcept {
    return vbslq_f32(vceqq_f32(v, v), v, vreinterpretq_f32_u32(vdupq_n_u32(0x7FC00000u)));
  }
};

}  // namespace

void depthwise_plane_neon(const DepthwisePlaneJob& job) {
  if (job.out_w >= NeonLanes::kWidth) {
    depthwise_detail::walk_plane<NeonLanes>(job);
  } else {
    depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<true>>(job);
  }
}

void depthwise_phase_rows_neon(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                               std::size_t rows, float* out, std::size_t out_step) {
  depthwise_detail::copy_phase_rows<NeonLanes>(src, src_step, stride, count, rows, out, out_step);
}

}  // namespace onemodel::opt
