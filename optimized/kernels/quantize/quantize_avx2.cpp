// The AVX2 path of the quantization kernels (quantize.hpp), 8 lanes: the SSE4.1 path's sequence
// (quantize_sse.cpp gives why each step is the reference's bits) on 256-bit registers; vroundps,
// vmaxps (second operand on NaN) and vminps behave as their 128-bit forms. The packs work per
// 128-bit half, so a permutation restores element order. The loops, the scalar rest and the
// min/max fold are quantize_lanes.hpp's.
#include <immintrin.h>

#include "optimized/kernels/quantize/quantize_lanes.hpp"

namespace onemodel::opt::quantize {
namespace {

struct Avx2Lanes {
  using F = __m256;
  static constexpr std::size_t kLanes = 8;
  static F splat(float v) noexcept { return _mm256_set1_ps(v); }
  static F load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static __m256i quantize(F x, F scale, F zero_point, F lo, F hi) noexcept {
    const F r = _mm256_round_ps(_mm256_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zero_point), lo), hi));
  }
  template <Out kOut>
  static constexpr std::size_t step() noexcept { return is_byte(kOut) ? 32 : 16; }
  template <Out kOut, class Q>
  static void store(void* y, std::size_t i, Q q) noexcept {
    if constexpr (is_byte(kOut)) {
      // Per half: [a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7] as dwords, reordered to a, b, c, d.
      const __m256i ab = _mm256_packs_epi32(q(i), q(i + 8));
      const __m256i cd = _mm256_packs_epi32(q(i + 16), q(i + 24));
      const __m256i bytes = kOut == Out::U8 ? _mm256_packus_epi16(ab, cd) : _mm256_packs_epi16(ab, cd);
      const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<std::uint8_t*>(y) + i),
                          _mm256_permutevar8x32_epi32(bytes, order));
    } else {
      // Per half: [a0-3 c0-3 | a4-7 c4-7] as qwords, reordered to a0-7 c0-7.
      const __m256i a = q(i), c = q(i + 8);
      const __m256i words = kOut == Out::U16 ? _mm256_packus_epi32(a, c) : _mm256_packs_epi32(a, c);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<std::uint16_t*>(y) + i),
                          _mm256_permute4x64_epi64(words, 0xD8));
    }
  }
  // As SSE: vminps(v, acc) keeps acc on a NaN v.
  static F lower(F v, F acc) noexcept { return _mm256_min_ps(v, acc); }
  static F higher(F v, F acc) noexcept { return _mm256_max_ps(v, acc); }
  static void store_floats(float* to, F v) noexcept { _mm256_storeu_ps(to, v); }
};

}  // namespace

void quantize_run__avx2(const Run& run) noexcept { quantize_lanes<Avx2Lanes>(run); }

MinMax min_max__avx2(const float* x, std::size_t n) noexcept { return min_max_lanes<Avx2Lanes>(x, n); }

}  // namespace onemodel::opt::quantize
