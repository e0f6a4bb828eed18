// Four-lane operations on NEON (aarch64), the interface of lanes_scalar.hpp. Include only from
// *_neon.cpp files. fmadd (FMLA) is called by fast-mode code only.
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace onemodel::opt::neon {

struct Lanes {
  static constexpr int kWidth = 4;
  static constexpr bool kHasFma = true;
  using F = float32x4_t;
  using M = uint32x4_t;
  using I = uint32x4_t;

  static F load(const float* p) noexcept { return vld1q_f32(p); }
  static void store(float* p, F v) noexcept { vst1q_f32(p, v); }
  static F set1(float v) noexcept { return vdupq_n_f32(v); }
  static F zero() noexcept { return vdupq_n_f32(0.0f); }
  static F add(F a, F b) noexcept { return vaddq_f32(a, b); }
  static F sub(F a, F b) noexcept { return vsubq_f32(a, b); }
  static F mul(F a, F b) noexcept { return vmulq_f32(a, b); }
  static F div(F a, F b) noexcept { return vdivq_f32(a, b); }
  static F sqrt(F a) noexcept { return vsqrtq_f32(a); }
  static F fmadd(F a, F b, F c) noexcept { return vfmaq_f32(c, a, b); }
  static M gt(F a, F b) noexcept { return vcgtq_f32(a, b); }
  static M lt(F a, F b) noexcept { return vcltq_f32(a, b); }
  static M eq(F a, F b) noexcept { return vceqq_f32(a, b); }
  static M is_nan(F a) noexcept { return vmvnq_u32(vceqq_f32(a, a)); }
  static F select(M m, F a, F b) noexcept { return vbslq_f32(m, a, b); }
  static I bits(F v) noexcept { return vreinterpretq_u32_f32(v); }
  static F from_bits(I v) noexcept { return vreinterpretq_f32_u32(v); }
  static I set1i(std::uint32_t v) noexcept { return vdupq_n_u32(v); }
  static I iadd(I a, I b) noexcept { return vaddq_u32(a, b); }
  static I isub(I a, I b) noexcept { return vsubq_u32(a, b); }
  static I shl23(I a) noexcept { return vshlq_n_u32(a, 23); }
  static F abs(F a) noexcept { return vabsq_f32(a); }
};

}  // namespace onemodel::opt::neon
