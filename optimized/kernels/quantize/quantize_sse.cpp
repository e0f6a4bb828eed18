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
//   range, which cvttps2dq converts exactly and the packs store unchanged.
// Tails run the scalar loop (quantize_scalar.cpp).
#include <smmintrin.h>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

__m128i quantize4(__m128 x, __m128 scale, __m128 zero_point, __m128 lo, __m128 hi) noexcept {
  const __m128 r = _mm_round_ps(_mm_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(_mm_add_ps(r, zero_point), lo), hi));
}

struct Bounds {
  float lo, hi;
  std::size_t bytes;
};

Bounds bounds_of(Out out) noexcept {
  switch (out) {
    case Out::U8: return {0.0f, 255.0f, 1};
    case Out::I8: return {-128.0f, 127.0f, 1};
    case Out::U16: return {0.0f, 65535.0f, 2};
    default: return {-32768.0f, 32767.0f, 2};
  }
}

template <Out kOut, bool kPerLane>
void run_lanes(const Run& r) noexcept {
  const Bounds b = bounds_of(kOut);
  const __m128 lo = _mm_set1_ps(b.lo), hi = _mm_set1_ps(b.hi);
  const __m128 s1 = _mm_set1_ps(r.scale[0]), z1 = _mm_set1_ps(r.zero_point[0]);
  auto q = [&](std::size_t i) {
    const __m128 s = kPerLane ? _mm_loadu_ps(r.scale + i) : s1;
    const __m128 z = kPerLane ? _mm_loadu_ps(r.zero_point + i) : z1;
    return quantize4(_mm_loadu_ps(r.x + i), s, z, lo, hi);
  };
  // Values are already in the type's range, so the saturating packs only narrow.
  constexpr std::size_t kStep = kOut == Out::U8 || kOut == Out::I8 ? 16 : 8;
  std::size_t i = 0;
  for (; i + kStep <= r.n; i += kStep) {
    if constexpr (kOut == Out::U8 || kOut == Out::I8) {
      const __m128i ab = _mm_packs_epi32(q(i), q(i + 4));
      const __m128i cd = _mm_packs_epi32(q(i + 8), q(i + 12));
      const __m128i bytes = kOut == Out::U8 ? _mm_packus_epi16(ab, cd) : _mm_packs_epi16(ab, cd);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<std::uint8_t*>(r.y) + i), bytes);
    } else {
      const __m128i a = q(i), c = q(i + 4);
      const __m128i words = kOut == Out::U16 ? _mm_packus_epi32(a, c) : _mm_packs_epi32(a, c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<std::uint16_t*>(r.y) + i), words);
    }
  }
  if (i == r.n) return;
  Run tail = r;
  tail.x += i;
  tail.y = static_cast<std::uint8_t*>(r.y) + i * b.bytes;
  tail.n -= i;
  if (kPerLane) {
    tail.scale += i;
    tail.zero_point += i;
  }
  quantize_run__scalar(tail);
}

template <bool kPerLane>
void run_out(const Run& r) noexcept {
  switch (r.out) {
    case Out::U8: run_lanes<Out::U8, kPerLane>(r); break;
    case Out::I8: run_lanes<Out::I8, kPerLane>(r); break;
    case Out::U16: run_lanes<Out::U16, kPerLane>(r); break;
    case Out::I16: run_lanes<Out::I16, kPerLane>(r); break;
  }
}

}  // namespace

void quantize_run__sse(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<true>(run);
  } else {
    run_out<false>(run);
  }
}

// minps(v, acc) and maxps(v, acc) return acc when v is NaN (the second operand): NaN is skipped.
// The lanes (each never -0: started at +0, replaced only by a strictly smaller or larger value)
// are folded with strict comparisons, as the reference's std::min/std::max.
MinMax min_max__sse(const float* x, std::size_t n) noexcept {
  __m128 lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = _mm_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int k = 0; k < 4; ++k) {
      const __m128 v = _mm_loadu_ps(x + i + 4 * k);
      lo[k] = _mm_min_ps(v, lo[k]);
      hi[k] = _mm_max_ps(v, hi[k]);
    }
  }
  float l[16], h[16];
  for (int k = 0; k < 4; ++k) {
    _mm_storeu_ps(l + 4 * k, lo[k]);
    _mm_storeu_ps(h + 4 * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (int k = 0; k < 16; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace onemodel::opt::quantize
