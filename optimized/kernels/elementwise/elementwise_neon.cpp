// The NEON path (aarch64) of the element-wise kernels: 4 lanes of the sequences in lane_math.hpp.
// Only unfused IEEE operations (vmulq/vaddq, never vfmaq or vmlaq), comparisons that are false
// for NaN, bit selects for the selections; vdivq and vsqrtq are correctly rounded on aarch64.
#include <arm_neon.h>

#include <cstdint>

#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/elementwise/lane_loops.hpp"

namespace onemodel::opt::ew {
namespace {

struct NeonLanes {
  using F = float32x4_t;
  using M = uint32x4_t;
  using I = uint32x4_t;
  static constexpr std::size_t kWidth = 4;
  static F load(const float* p) noexcept { return vld1q_f32(p); }
  static void store(float* p, F v) noexcept { vst1q_f32(p, v); }
  static F splat(float v) noexcept { return vdupq_n_f32(v); }
  static I splat_i(std::uint32_t v) noexcept { return vdupq_n_u32(v); }
  static F add(F a, F b) noexcept { return vaddq_f32(a, b); }
  static F sub(F a, F b) noexcept { return vsubq_f32(a, b); }
  static F mul(F a, F b) noexcept { return vmulq_f32(a, b); }
  static F div(F a, F b) noexcept { return vdivq_f32(a, b); }
  static F sqrt(F a) noexcept { return vsqrtq_f32(a); }
  static M lt(F a, F b) noexcept { return vcltq_f32(a, b); }
  static M gt(F a, F b) noexcept { return vcgtq_f32(a, b); }
  static M ge(F a, F b) noexcept { return vcgeq_f32(a, b); }
  static M eq(F a, F b) noexcept { return vceqq_f32(a, b); }
  static M is_nan(F a) noexcept { return vmvnq_u32(vceqq_f32(a, a)); }
  static bool all(M m) noexcept { return vminvq_u32(m) != 0; }
  static F select(M m, F t, F f) noexcept { return vbslq_f32(m, t, f); }
  static I bits(F a) noexcept { return vreinterpretq_u32_f32(a); }
  static F from_bits(I u) noexcept { return vreinterpretq_f32_u32(u); }
  static I add_i(I a, I b) noexcept { return vaddq_u32(a, b); }
  static I sub_i(I a, I b) noexcept { return vsubq_u32(a, b); }
  static I and_i(I a, I b) noexcept { return vandq_u32(a, b); }
  static I or_i(I a, I b) noexcept { return vorrq_u32(a, b); }
  static I xor_i(I a, I b) noexcept { return veorq_u32(a, b); }
  template <int N>
  static I srai(I a) noexcept {
    return vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(a), N));
  }
  template <int N>
  static I slli(I a) noexcept {
    return vshlq_n_u32(a, N);
  }
};

}  // namespace

void unary_f32__neon(const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  unary_lanes<NeonLanes>(args, x, y, n);
}

void scale_shift_activation_f32__neon(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                      std::size_t n) {
  scale_shift_activation_lanes<NeonLanes>(a, shift, act, x, y, n);
}

void binary_f32__neon(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                      float* y, std::size_t n) {
  binary_lanes<NeonLanes>(op, a, a_step, b, b_step, y, n);
}

}  // namespace onemodel::opt::ew
