// Eight-lane operations on AVX2 with FMA3 (x86-64), the interface of lanes_scalar.hpp. Include
// only from *_avx2.cpp files (compiled with -mavx2 -mfma). fmadd is the only fused operation and
// only fast-mode code calls it (DESIGN.md section 4).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace onemodel::opt::avx2 {

struct Lanes {
  static constexpr int kWidth = 8;
  static constexpr bool kHasFma = true;
  using F = __m256;
  using M = __m256;
  using I = __m256i;

  static F load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm256_storeu_ps(p, v); }
  static F set1(float v) noexcept { return _mm256_set1_ps(v); }
  static F zero() noexcept { return _mm256_setzero_ps(); }
  static F add(F a, F b) noexcept { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm256_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm256_sqrt_ps(a); }
  static F fmadd(F a, F b, F c) noexcept { return _mm256_fmadd_ps(a, b, c); }
  static M gt(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M lt(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static M eq(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static M is_nan(F a) noexcept { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static F select(M m, F a, F b) noexcept { return _mm256_blendv_ps(b, a, m); }
  static I bits(F v) noexcept { return _mm256_castps_si256(v); }
  static F from_bits(I v) noexcept { return _mm256_castsi256_ps(v); }
  static I set1i(std::uint32_t v) noexcept { return _mm256_set1_epi32(static_cast<int>(v)); }
  static I iadd(I a, I b) noexcept { return _mm256_add_epi32(a, b); }
  static I isub(I a, I b) noexcept { return _mm256_sub_epi32(a, b); }
  static I shl23(I a) noexcept { return _mm256_slli_epi32(a, 23); }
  // Optional (exp_lanes.hpp tests for them): select(gt(a, b), a, b) and select(lt(a, b), a, b)
  // in one instruction, b when either is NaN (the x86 rule, which is the selection's); select(m,
  // +0, v) in one instruction.
  static F max(F a, F b) noexcept { return _mm256_max_ps(a, b); }
  static F min(F a, F b) noexcept { return _mm256_min_ps(a, b); }
  static F zero_where(M m, F v) noexcept { return _mm256_andnot_ps(m, v); }
  static F abs(F a) noexcept { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))); }
};

}  // namespace onemodel::opt::avx2
