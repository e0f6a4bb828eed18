// The eight-lane traits of the direct depthwise kernels (depthwise_stride1_body.hpp,
// depthwise_stride2_body.hpp, depthwise_blocked_body.hpp) on AVX2+FMA. AVX2 has no mask registers: a lane set is the lane
// mask vmaskmovps takes (all bits set in the lanes of the set), made once per tile; masked loads
// read nothing in masked-off lanes and hold +0 there (vmaskmovps zeroes them and suppresses
// faults), so padding taps are products with +0 as on AVX-512. In an anonymous namespace, so that
// each file including it (built with the AVX2 flags, cmake/kernel_sources.cmake) has its own copy
// and the linker never merges it with the AVX-512 traits' code. Include only from files built
// with the AVX2 flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/transpose/transpose8_avx2.hpp"

namespace onemodel::opt {
namespace {

struct Avx2DirectLanes {
  static constexpr std::ptrdiff_t kLanes = 8;
  using Vec = __m256;
  using Mask = __m256i;

  // Lanes t in [0, 8) with lo <= t < hi: lane t is set when lo <= t and t < hi.
  static Mask between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
    const std::int32_t a = static_cast<std::int32_t>(lo < -1 ? -1 : (lo > kLanes ? kLanes : lo));
    const std::int32_t b = static_cast<std::int32_t>(hi < 0 ? 0 : (hi > kLanes ? kLanes : hi));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // lane >= a and lane < b, as lane > a - 1 and b > lane.
    return _mm256_and_si256(_mm256_cmpgt_epi32(lane, _mm256_set1_epi32(a - 1)),
                            _mm256_cmpgt_epi32(_mm256_set1_epi32(b), lane));
  }
  static Vec zero() noexcept { return _mm256_setzero_ps(); }
  static Vec set1(float v) noexcept { return _mm256_set1_ps(v); }
  static Vec loadu(const float* p) noexcept { return _mm256_loadu_ps(p); }
  // The address is formed as an integer: for masked-off lanes it may lie outside the row.
  static Vec load_or_zero(const float* row, std::ptrdiff_t at, Mask mask) noexcept {
    const std::uintptr_t address =
        reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(at) * sizeof(float);
    return _mm256_maskload_ps(reinterpret_cast<const float*>(address), mask);
  }
  static void storeu(float* p, Vec v) noexcept { _mm256_storeu_ps(p, v); }
  static void store_first(float* p, std::ptrdiff_t count, Vec v) noexcept {
    if (count >= kLanes) return _mm256_storeu_ps(p, v);
    _mm256_maskstore_ps(p, between(0, count), v);
  }
  static Vec add(Vec a, Vec b) noexcept { return _mm256_add_ps(a, b); }
  // One tap: the weight times the input rounded, then the rounded sum, in exact mode (exact-mode.md
  // rule 1); one fused multiply-add in fast mode, as the AVX2 plane walk (depthwise_avx2.cpp).
  template <bool kExact>
  static Vec step(Vec acc, Vec w, Vec x) noexcept {
    if constexpr (kExact) {
      const Vec prod = _mm256_mul_ps(w, x);
      return _mm256_add_ps(acc, prod);
    } else {
      return _mm256_fmadd_ps(w, x, acc);
    }
  }
  // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
  static Vec canonical_nan(Vec v) noexcept {
    return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }

  // Even and odd columns of 16: one shuffle within the 128-bit halves (a0 a2 b0 b2 | a4 a6 b4 b6),
  // then a 64-bit permute puts the pairs in order (a0 a2 a4 a6 b0 b2 b4 b6).
  static void split(Vec l0, Vec l1, Vec& even, Vec& odd) noexcept {
    even = _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(2, 0, 2, 0))), 0xD8));
    odd = _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 1, 3, 1))), 0xD8));
  }
  // Only lanes 0 and 1 of the next vectors are read (shift<q> with q <= 2 takes lanes [0, q)), so
  // one shuffle within the 128-bit halves each: lanes 0 and 1 are columns 0 and 2, or 1 and 3.
  static void split_one(Vec l2, Vec& even, Vec& odd) noexcept {
    even = _mm256_shuffle_ps(l2, l2, _MM_SHUFFLE(2, 0, 2, 0));
    odd = _mm256_shuffle_ps(l2, l2, _MM_SHUFFLE(3, 1, 3, 1));
  }
  // Lane j of cur then next, q on: the upper half of cur and the lower of next side by side, then
  // a byte align within each 128-bit half.
  // The channel-blocked kernel's.
  static Mask first_lanes(std::size_t count) noexcept {
    return between(0, static_cast<std::ptrdiff_t>(count > 8 ? 8 : count));
  }
  static Vec load_first(const float* p, Mask mask) noexcept { return _mm256_maskload_ps(p, mask); }
  static void store_mask(float* p, Mask mask, Vec v) noexcept { _mm256_maskstore_ps(p, mask, v); }
  static void transpose(const Vec in[8], Vec out[8]) noexcept { avx2_transpose::transpose8(in, out); }

  template <int q>
  static Vec shift(Vec cur, Vec next) noexcept {
    const __m256 middle = _mm256_permute2f128_ps(cur, next, 0x21);
    return _mm256_castsi256_ps(
        _mm256_alignr_epi8(_mm256_castps_si256(middle), _mm256_castps_si256(cur), 4 * q));
  }
};

}  // namespace
}  // namespace onemodel::opt
