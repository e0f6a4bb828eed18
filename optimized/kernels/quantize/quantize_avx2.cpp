// The AVX2 path of the quantization kernels (quantize.hpp), 8 lanes: the SSE4.1 path's sequence
// (quantize_sse.cpp gives why each step is the reference's bits) on 256-bit registers; vroundps,
// vmaxps (second operand on NaN) and vminps behave as their 128-bit forms. The packs work per
// 128-bit half, so a permutation restores element order. Tails run the scalar loop.
#include <immintrin.h>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

__m256i quantize8(__m256 x, __m256 scale, __m256 zero_point, __m256 lo, __m256 hi) noexcept {
  const __m256 r = _mm256_round_ps(_mm256_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zero_point), lo), hi));
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
  const __m256 lo = _mm256_set1_ps(b.lo), hi = _mm256_set1_ps(b.hi);
  const __m256 s1 = _mm256_set1_ps(r.scale[0]), z1 = _mm256_set1_ps(r.zero_point[0]);
  auto q = [&](std::size_t i) {
    const __m256 s = kPerLane ? _mm256_loadu_ps(r.scale + i) : s1;
    const __m256 z = kPerLane ? _mm256_loadu_ps(r.zero_point + i) : z1;
    return quantize8(_mm256_loadu_ps(r.x + i), s, z, lo, hi);
  };
  constexpr std::size_t kStep = kOut == Out::U8 || kOut == Out::I8 ? 32 : 16;
  std::size_t i = 0;
  for (; i + kStep <= r.n; i += kStep) {
    if constexpr (kOut == Out::U8 || kOut == Out::I8) {
      // Per half: [a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7] as dwords, reordered to a, b, c, d.
      const __m256i ab = _mm256_packs_epi32(q(i), q(i + 8));
      const __m256i cd = _mm256_packs_epi32(q(i + 16), q(i + 24));
      const __m256i bytes = kOut == Out::U8 ? _mm256_packus_epi16(ab, cd) : _mm256_packs_epi16(ab, cd);
      const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<std::uint8_t*>(r.y) + i),
                          _mm256_permutevar8x32_epi32(bytes, order));
    } else {
      // Per half: [a0-3 c0-3 | a4-7 c4-7] as qwords, reordered to a0-7 c0-7.
      const __m256i a = q(i), c = q(i + 8);
      const __m256i words = kOut == Out::U16 ? _mm256_packus_epi32(a, c) : _mm256_packs_epi32(a, c);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<std::uint16_t*>(r.y) + i),
                          _mm256_permute4x64_epi64(words, 0xD8));
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

void quantize_run__avx2(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<true>(run);
  } else {
    run_out<false>(run);
  }
}

// As min_max__sse: vminps(v, acc) keeps acc on a NaN v; lanes folded with strict comparisons.
MinMax min_max__avx2(const float* x, std::size_t n) noexcept {
  __m256 lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      lo[k] = _mm256_min_ps(v, lo[k]);
      hi[k] = _mm256_max_ps(v, hi[k]);
    }
  }
  float l[32], h[32];
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(l + 8 * k, lo[k]);
    _mm256_storeu_ps(h + 8 * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (int k = 0; k < 32; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace onemodel::opt::quantize
