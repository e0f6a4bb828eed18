// The SSE4.1 path of the quantization kernels (quantize.hpp), 4 lanes. Why it is the reference's
// bits (reference/ops/op_quantize_linear.cpp; spec/ops/quantization.md sections 1 and 4):
// - divps is the IEEE binary32 division the reference does;
// - roundps to nearest even of a binary32 q is round_half_even(double(q)): the nearest integer of
//   a binary32 value is itself a binary32 value (|q| < 2^23 gives at most 24 bits; |q| >= 2^23 is
//   already an integer), and infinities and NaN pass unchanged;
// - adding the zero point (|zp| <= 65535) in binary32 is exact while |r + zp| < 2^24; beyond, both
//   the reference's double sum and this rounded sum lie past the type's range on the same side
//   (rounding is monotonic), so the clamp gives the same end of the range;
// - maxps returns its second operand when the first is NaN: max(t, lo) makes a NaN the type's
//   smallest value (int8.md), +-inf the ends of the range; the clamped value is an integer in
//   range, which cvttps2dq converts exactly and the packs store unchanged (they only narrow).
// minps(v, acc) and maxps(v, acc) return acc when v is NaN (the second operand): NaN is skipped.
// The loops, the scalar rest and the min/max fold are quantize_lanes.hpp's.
#include <smmintrin.h>

#include "optimized/kernels/quantize/quantize_lanes.hpp"

namespace onemodel::opt::quantize {
namespace {

struct SseLanes {
  using F = __m128;
  static constexpr std::size_t kLanes = 4;
  static F splat(float v) noexcept { return _mm_set1_ps(v); }
  static F load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static __m128i quantize(F x, F scale, F zero_point, F lo, F hi) noexcept {
    const F r = _mm_round_ps(_mm_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(_mm_add_ps(r, zero_point), lo), hi));
  }
  template <Out kOut>
  static constexpr std::size_t step() noexcept { return is_byte(kOut) ? 16 : 8; }
  template <Out kOut, class Q>
  static void store(void* y, std::size_t i, Q q) noexcept {
    if constexpr (is_byte(kOut)) {
      const __m128i ab = _mm_packs_epi32(q(i), q(i + 4));
      const __m128i cd = _mm_packs_epi32(q(i + 8), q(i + 12));
      const __m128i bytes = kOut == Out::U8 ? _mm_packus_epi16(ab, cd) : _mm_packs_epi16(ab, cd);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<std::uint8_t*>(y) + i), bytes);
    } else {
      const __m128i a = q(i), c = q(i + 4);
      const __m128i words = kOut == Out::U16 ? _mm_packus_epi32(a, c) : _mm_packs_epi32(a, c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<std::uint16_t*>(y) + i), words);
    }
  }
  static F lower(F v, F acc) noexcept { return _mm_min_ps(v, acc); }
  static F higher(F v, F acc) noexcept { return _mm_max_ps(v, acc); }
  static void store_floats(float* to, F v) noexcept { _mm_storeu_ps(to, v); }
};

}  // namespace

void quantize_run__sse(const Run& run) noexcept { quantize_lanes<SseLanes>(run); }

MinMax min_max__sse(const float* x, std::size_t n) noexcept { return min_max_lanes<SseLanes>(x, n); }

}  // namespace onemodel::opt::quantize
