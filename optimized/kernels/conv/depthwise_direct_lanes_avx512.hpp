// The sixteen-lane traits of the direct depthwise kernels (depthwise_stride1_body.hpp,
// depthwise_stride2_body.hpp, depthwise_blocked_body.hpp) on AVX-512: masks are mask registers, masked loads read nothing in
// masked-off lanes and hold +0 there. In an anonymous namespace, so that each file including it
// (built with the AVX-512 flags, cmake/kernel_sources.cmake) has its own copy and the linker never
// merges it with the AVX2 traits' code. Include only from files built with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include <cstddef>

#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/transpose/transpose16_avx512.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

struct Avx512DirectLanes {
  static constexpr std::ptrdiff_t kLanes = row_lanes::kLanes;
  using Vec = __m512;
  using Mask = __mmask16;

  static Mask between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept { return row_lanes::between(lo, hi); }
  static Vec zero() noexcept { return _mm512_setzero_ps(); }
  static Vec set1(float v) noexcept { return _mm512_set1_ps(v); }
  static Vec loadu(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static Vec load_or_zero(const float* row, std::ptrdiff_t at, Mask mask) noexcept {
    return row_lanes::load_or_zero(row, at, mask);
  }
  static void storeu(float* p, Vec v) noexcept { _mm512_storeu_ps(p, v); }
  static void store_first(float* p, std::ptrdiff_t count, Vec v) noexcept {
    const __mmask16 stored =
        count >= kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << count) - 1u);
    _mm512_mask_storeu_ps(p, stored, v);
  }
  static Vec add(Vec a, Vec b) noexcept { return _mm512_add_ps(a, b); }
  // One tap: the weight times the input then rounded add in exact mode, one fused multiply-add in
  // fast mode (the product kernels' step, gemm_lanes_avx512.hpp).
  template <bool kExact>
  static Vec step(Vec acc, Vec w, Vec x) noexcept {
    return gemm::avx512::step<!kExact>(acc, w, x);
  }
  static Vec canonical_nan(Vec v) noexcept { return gemm::avx512::canonical_nan(v); }

  // Two permutes split 32 columns into even and odd ones.
  static void split(Vec l0, Vec l1, Vec& even, Vec& odd) noexcept {
    const __m512i e = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i o = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    even = _mm512_permutex2var_ps(l0, e, l1);
    odd = _mm512_permutex2var_ps(l0, o, l1);
  }
  // The all-lanes zero-masked forms: the unmasked ones make GCC 12 warn (-Wmaybe-uninitialized
  // on their undefined pass-through operand), an error in the Checked build.
  static void split_one(Vec l2, Vec& even, Vec& odd) noexcept {
    const __m512i e = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i o = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __mmask16 all = 0xFFFF;
    even = _mm512_maskz_permutexvar_ps(all, e, l2);
    odd = _mm512_maskz_permutexvar_ps(all, o, l2);
  }
  // The channel-blocked kernel's.
  static Mask first_lanes(std::size_t count) noexcept {
    return static_cast<__mmask16>(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
  }
  static Vec load_first(const float* p, Mask mask) noexcept { return _mm512_maskz_loadu_ps(mask, p); }
  static void store_mask(float* p, Mask mask, Vec v) noexcept { _mm512_mask_storeu_ps(p, mask, v); }
  static void transpose(const Vec in[16], Vec out[16]) noexcept { avx512_transpose::transpose16(in, out); }

  template <int q>
  static Vec shift(Vec cur, Vec next) noexcept {
    const __mmask16 all = 0xFFFF;
    return _mm512_castsi512_ps(
        _mm512_maskz_alignr_epi32(all, _mm512_castps_si512(next), _mm512_castps_si512(cur), q));
  }
};

}  // namespace
}  // namespace onemodel::opt
