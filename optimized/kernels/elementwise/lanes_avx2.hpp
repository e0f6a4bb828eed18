// The AVX2 lanes type of the element-wise sequences (lane_math.hpp): 8 lanes, comparisons as
// all-ones lanes, blends for the selections. Only unfused IEEE operations (no FMA intrinsic but in
// the fast-mode sigmoid), ordered comparisons (false for NaN, as C's < and >). The element-wise
// kernel's AVX2 path (elementwise_avx2.cpp) runs its loops over it, and the product's store kernel
// (fused_activation_avx2.hpp) calls the same sequences with it, so their values are the
// element-wise kernel's bits. Include only from files compiled with the AVX2 flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::ew {

struct Avx2Lanes {
  using F = __m256;
  using M = __m256;
  using I = __m256i;
  static constexpr std::size_t kWidth = 8;
  static F load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm256_storeu_ps(p, v); }
  static F splat(float v) noexcept { return _mm256_set1_ps(v); }
  static I splat_i(std::uint32_t v) noexcept { return _mm256_set1_epi32(static_cast<int>(v)); }
  static F add(F a, F b) noexcept { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm256_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm256_sqrt_ps(a); }
  // Fast mode only (fast_sigmoid in lane_math.hpp); exact code never calls it.
  static F fmadd(F a, F b, F c) noexcept { return _mm256_fmadd_ps(a, b, c); }
  // The larger of a and b; b when either is NaN (fast_exp_nonpositive's clamp, whose NaN lanes
  // its callers replace).
  static F max(F a, F b) noexcept { return _mm256_max_ps(a, b); }
  // -(a * b) + c in one rounding (fast_reciprocal's Newton step: the fused step of -a, b, c).
  static F fnmadd(F a, F b, F c) noexcept { return _mm256_fnmadd_ps(a, b, c); }
  static M lt(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static M gt(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M ge(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static M eq(F a, F b) noexcept { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static M is_nan(F a) noexcept { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static bool all(M m) noexcept { return _mm256_movemask_ps(m) == 0xFF; }
  static F select(M m, F t, F f) noexcept { return _mm256_blendv_ps(f, t, m); }
  static I bits(F a) noexcept { return _mm256_castps_si256(a); }
  static F from_bits(I u) noexcept { return _mm256_castsi256_ps(u); }
  static I add_i(I a, I b) noexcept { return _mm256_add_epi32(a, b); }
  static I sub_i(I a, I b) noexcept { return _mm256_sub_epi32(a, b); }
  static I and_i(I a, I b) noexcept { return _mm256_and_si256(a, b); }
  static I or_i(I a, I b) noexcept { return _mm256_or_si256(a, b); }
  static I xor_i(I a, I b) noexcept { return _mm256_xor_si256(a, b); }
  template <int N>
  static I srai(I a) noexcept {
    return _mm256_srai_epi32(a, N);
  }
  template <int N>
  static I slli(I a) noexcept {
    return _mm256_slli_epi32(a, N);
  }
};

}  // namespace onemodel::opt::ew
