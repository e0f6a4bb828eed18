// The AVX-512 lanes type of the element-wise sequences (lane_math.hpp): 16 lanes, opmasks for the
// comparisons, masked blends for the selections. The element-wise kernel's AVX-512 path
// (elementwise_avx512.cpp) runs its loops over it, and the kernels that apply an activation in
// their own stores (fused_activation_avx512.hpp) call the same sequences with it, so their values
// are the element-wise kernel's bits. Include only from files compiled with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::ew {

struct Avx512Lanes {
  using F = __m512;
  using M = __mmask16;
  using I = __m512i;
  static constexpr std::size_t kWidth = 16;
  // GCC 12.2's unmasked _mm512_sqrt_ps, _mm512_max_ps, _mm512_slli_epi32 and _mm512_srai_epi32 pass an
  // "undefined" source that -Wuninitialized reports (GCC PR 105593, fixed in 12.3); the zero-masked
  // forms with every lane selected are the same operation without that source.
  static constexpr __mmask16 kAll = 0xFFFF;
  static F load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm512_storeu_ps(p, v); }
  // The first `count` lanes (count < 16), the others +0 and never read; stores only those lanes.
  static __mmask16 first(std::size_t count) noexcept { return static_cast<__mmask16>((1u << count) - 1u); }
  static F load_first(const float* p, std::size_t count) noexcept { return _mm512_maskz_loadu_ps(first(count), p); }
  static void store_first(float* p, F v, std::size_t count) noexcept { _mm512_mask_storeu_ps(p, first(count), v); }
  static F splat(float v) noexcept { return _mm512_set1_ps(v); }
  static I splat_i(std::uint32_t v) noexcept { return _mm512_set1_epi32(static_cast<int>(v)); }
  static F add(F a, F b) noexcept { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm512_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm512_maskz_sqrt_ps(kAll, a); }
  // Fast mode only (fast_sigmoid in lane_math.hpp): the one fused operation of this file, the
  // 14-bit reciprocal estimate and the power-of-two scaling. Exact code never calls them.
  static F fmadd(F a, F b, F c) noexcept { return _mm512_fmadd_ps(a, b, c); }
  static F rcp14(F a) noexcept { return _mm512_maskz_rcp14_ps(kAll, a); }
  static F scalef(F a, F b) noexcept { return _mm512_maskz_scalef_ps(kAll, a, b); }  // a * 2^floor(b)
  // The larger of a and b; b when either is NaN (fast_exp_nonpositive's clamp, whose NaN lanes
  // its callers replace).
  static F max(F a, F b) noexcept { return _mm512_maskz_max_ps(kAll, a, b); }
  // -(a * b) + c in one rounding (fast_reciprocal's Newton step: the fused step of -a, b, c).
  static F fnmadd(F a, F b, F c) noexcept { return _mm512_fnmadd_ps(a, b, c); }
  // keep where m, else a * b (one rounded product): the selection of fast_sigmoid as one masked op.
  static F mul_unless(M m, F keep, F a, F b) noexcept { return _mm512_mask_mul_ps(keep, static_cast<M>(~m), a, b); }
  static M lt(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static M gt(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static M ge(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  static M eq(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static M is_nan(F a) noexcept { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static bool all(M m) noexcept { return m == 0xFFFF; }
  static F select(M m, F t, F f) noexcept { return _mm512_mask_blend_ps(m, f, t); }
  static I bits(F a) noexcept { return _mm512_castps_si512(a); }
  static F from_bits(I u) noexcept { return _mm512_castsi512_ps(u); }
  static I add_i(I a, I b) noexcept { return _mm512_add_epi32(a, b); }
  static I sub_i(I a, I b) noexcept { return _mm512_sub_epi32(a, b); }
  static I and_i(I a, I b) noexcept { return _mm512_and_si512(a, b); }
  static I or_i(I a, I b) noexcept { return _mm512_or_si512(a, b); }
  static I xor_i(I a, I b) noexcept { return _mm512_xor_si512(a, b); }
  template <int N>
  static I srai(I a) noexcept {
    return _mm512_maskz_srai_epi32(kAll, a, N);
  }
  template <int N>
  static I slli(I a) noexcept {
    return _mm512_maskz_slli_epi32(kAll, a, N);
  }
};

}  // namespace onemodel::opt::ew
