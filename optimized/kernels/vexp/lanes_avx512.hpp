// Sixteen-lane operations on AVX-512 (F, DQ, BW, VL; x86-64), the interface of lanes_scalar.hpp.
// Include only from *_avx512.cpp files (compiled with the AVX-512 flags of
// cmake/kernel_sources.cmake). Comparisons give opmask registers and select blends with them:
// lane by lane the same IEEE operations as the other paths, so exact results keep their bits
// (exact-mode.md rules 1 and 2). fmadd is the only fused operation and only fast-mode code calls it.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::avx512 {

struct Lanes {
  static constexpr int kWidth = 16;
  static constexpr bool kHasFma = true;
  using F = __m512;
  using M = __mmask16;
  using I = __m512i;
  // GCC 12.2's unmasked _mm512_sqrt_ps, _mm512_slli_epi32 and _mm512_srai_epi32 pass an
  // "undefined" source that -Wuninitialized reports (GCC PR 105593, fixed in 12.3); the zero-masked
  // forms with every lane selected are the same operation without that source.
  static constexpr __mmask16 kAll = 0xFFFF;

  static F load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm512_storeu_ps(p, v); }
  static F set1(float v) noexcept { return _mm512_set1_ps(v); }
  static F zero() noexcept { return _mm512_setzero_ps(); }
  static F add(F a, F b) noexcept { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm512_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm512_maskz_sqrt_ps(kAll, a); }
  static F fmadd(F a, F b, F c) noexcept { return _mm512_fmadd_ps(a, b, c); }
  static M gt(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static M lt(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static M eq(F a, F b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static M is_nan(F a) noexcept { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static F select(M m, F a, F b) noexcept { return _mm512_mask_blend_ps(m, b, a); }
  static I bits(F v) noexcept { return _mm512_castps_si512(v); }
  static F from_bits(I v) noexcept { return _mm512_castsi512_ps(v); }
  static I set1i(std::uint32_t v) noexcept { return _mm512_set1_epi32(static_cast<int>(v)); }
  static I iadd(I a, I b) noexcept { return _mm512_add_epi32(a, b); }
  static I isub(I a, I b) noexcept { return _mm512_sub_epi32(a, b); }
  static I shl23(I a) noexcept { return _mm512_maskz_slli_epi32(kAll, a, 23); }
  // Optional (exp_lanes.hpp tests for them): select(gt(a, b), a, b) and select(lt(a, b), a, b)
  // in one instruction, b when either is NaN (the x86 rule, which is the selection's; the
  // zero-masked forms for PR 105593, as above); select(m, +0, v) in one instruction.
  static F max(F a, F b) noexcept { return _mm512_maskz_max_ps(kAll, a, b); }
  static F min(F a, F b) noexcept { return _mm512_maskz_min_ps(kAll, a, b); }
  static F zero_where(M m, F v) noexcept { return _mm512_maskz_mov_ps(static_cast<M>(~m), v); }
  static F abs(F a) noexcept {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7FFFFFFF)));
  }
  // The first `count` lanes (count < 16) of a row's last partial vector, by masked loads and
  // stores: the lanes past the row are neither read nor written. load_first fills them with +0,
  // load_first_or with `fill`; keep_first sets them to +0. The other paths go through a buffer
  // (exp_lanes.hpp map_array, softmax_body.hpp): the same values in the row's lanes.
  static M first(std::size_t count) noexcept { return static_cast<M>((1u << count) - 1u); }
  static F load_first(const float* p, std::size_t count) noexcept { return _mm512_maskz_loadu_ps(first(count), p); }
  static F load_first_or(const float* p, std::size_t count, F fill) noexcept {
    return _mm512_mask_loadu_ps(fill, first(count), p);
  }
  static void store_first(float* p, F v, std::size_t count) noexcept { _mm512_mask_storeu_ps(p, first(count), v); }
  static F keep_first(F v, std::size_t count) noexcept { return _mm512_maskz_mov_ps(first(count), v); }
};

}  // namespace onemodel::opt::avx512
