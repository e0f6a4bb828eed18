// The AVX-512 path of the quantization kernels (quantize.hpp), 16 lanes: the SSE4.1 path's
// sequence (quantize_sse.cpp gives why each step is the reference's bits) with vrndscaleps
// (immediate 8: scale 2^0, round to nearest even, no precision exception) for roundps; vmaxps
// zmm returns its second operand on NaN as the 128-bit form. The clamped integers are in range,
// so the truncating vpmovdb/vpmovdw store them unchanged. The tail is the same sequence under a
// mask (lanes outside it are neither read from x nor stored).
#include <immintrin.h>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

// GCC 12's unmasked forms of these intrinsics pass an "undefined" source that -Wuninitialized
// reports (GCC PR 105593, as in attention_avx512.cpp); the zero-masked forms with every lane
// selected are the same instructions.
constexpr __mmask16 kAll = 0xFFFF;

struct Bounds {
  float lo, hi;
};

Bounds bounds_of(Out out) noexcept {
  switch (out) {
    case Out::U8: return {0.0f, 255.0f};
    case Out::I8: return {-128.0f, 127.0f};
    case Out::U16: return {0.0f, 65535.0f};
    default: return {-32768.0f, 32767.0f};
  }
}

template <Out kOut, bool kPerLane>
void run_lanes(const Run& r) noexcept {
  const Bounds b = bounds_of(kOut);
  const __m512 lo = _mm512_set1_ps(b.lo), hi = _mm512_set1_ps(b.hi);
  const __m512 s1 = _mm512_set1_ps(r.scale[0]), z1 = _mm512_set1_ps(r.zero_point[0]);
  const __m512 one = _mm512_set1_ps(1.0f);
  auto store = [&](std::size_t i, __mmask16 m) {
    // Masked-off lanes divide 0 by 1 (no exception), and are not stored.
    const __m512 s = kPerLane ? _mm512_mask_loadu_ps(one, m, r.scale + i) : s1;
    const __m512 z = kPerLane ? _mm512_maskz_loadu_ps(m, r.zero_point + i) : z1;
    const __m512 x = _mm512_maskz_loadu_ps(m, r.x + i);
    const __m512 q = _mm512_maskz_roundscale_ps(kAll, _mm512_div_ps(x, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 t = _mm512_maskz_min_ps(kAll, _mm512_maskz_max_ps(kAll, _mm512_add_ps(q, z), lo), hi);
    const __m512i v = _mm512_maskz_cvttps_epi32(kAll, t);
    if constexpr (kOut == Out::U8 || kOut == Out::I8) {
      _mm512_mask_cvtepi32_storeu_epi8(static_cast<std::uint8_t*>(r.y) + i, m, v);
    } else {
      _mm512_mask_cvtepi32_storeu_epi16(static_cast<std::uint16_t*>(r.y) + i, m, v);
    }
  };
  std::size_t i = 0;
  for (; i + 16 <= r.n; i += 16) store(i, kAll);
  if (i < r.n) store(i, static_cast<__mmask16>((1u << (r.n - i)) - 1u));
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

void quantize_run__avx512(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<true>(run);
  } else {
    run_out<false>(run);
  }
}

// As min_max__sse: vminps(v, acc) keeps acc on a NaN v; lanes folded with strict comparisons.
MinMax min_max__avx512(const float* x, std::size_t n) noexcept {
  __m512 lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    for (int k = 0; k < 4; ++k) {
      const __m512 v = _mm512_loadu_ps(x + i + 16 * k);
      lo[k] = _mm512_maskz_min_ps(kAll, v, lo[k]);
      hi[k] = _mm512_maskz_max_ps(kAll, v, hi[k]);
    }
  }
  float l[64], h[64];
  for (int k = 0; k < 4; ++k) {
    _mm512_storeu_ps(l + 16 * k, lo[k]);
    _mm512_storeu_ps(h + 16 * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (int k = 0; k < 64; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace onemodel::opt::quantize
