// Four-lane operations on SSE4.1 (x86-64), the interface of lanes_scalar.hpp. Include only from
// *_sse.cpp files (compiled with -msse4.1).
#pragma once

#include <smmintrin.h>

#include <cstdint>

namespace onemodel::opt::sse {

struct Lanes {
  static constexpr int kWidth = 4;
  static constexpr bool kHasFma = false;  // SSE4.1 has no fused multiply-add
  using F = __m128;
  using M = __m128;
  using I = __m128i;

  static F load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm_storeu_ps(p, v); }
  static F set1(float v) noexcept { return _mm_set1_ps(v); }
  static F zero() noexcept { return _mm_setzero_ps(); }
  static F add(F a, F b) noexcept { return _mm_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm_sqrt_ps(a); }
  static F fmadd(F a, F b, F c) noexcept { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static M gt(F a, F b) noexcept { return _mm_cmpgt_ps(a, b); }
  static M lt(F a, F b) noexcept { return _mm_cmplt_ps(a, b); }
  static M eq(F a, F b) noexcept { return _mm_cmpeq_ps(a, b); }
  static M is_nan(F a) noexcept { return _mm_cmpunord_ps(a, a); }
  static F select(M m, F a, F b) noexcept { return _mm_blendv_ps(b, a, m); }
  static I bits(F v) noexcept { return _mm_castps_si128(v); }
  static F from_bits(I v) noexcept { return _mm_castsi128_ps(v); }
  static I set1i(std::uint32_t v) noexcept { return _mm_set1_epi32(static_cast<int>(v)); }
  static I iadd(I a, I b) noexcept { return _mm_add_epi32(a, b); }
  static I isub(I a, I b) noexcept { return _mm_sub_epi32(a, b); }
  static I shl23(I a) noexcept { return _mm_slli_epi32(a, 23); }
  // Optional (exp_lanes.hpp tests for them): select(gt(a, b), a, b) and select(lt(a, b), a, b)
  // in one instruction, b when either is NaN (the x86 rule, which is the selection's); select(m,
  // +0, v) in one instruction.
  static F max(F a, F b) noexcept { return _mm_max_ps(a, b); }
  static F min(F a, F b) noexcept { return _mm_min_ps(a, b); }
  static F zero_where(M m, F v) noexcept { return _mm_andnot_ps(m, v); }
  static F abs(F a) noexcept { return _mm_and_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF))); }
};

}  // namespace onemodel::opt::sse
