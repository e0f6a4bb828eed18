// The AVX-512 path of the quantization kernels (quantize.hpp), 16 lanes: the SSE4.1 path's
// sequence (quantize_sse.cpp gives why each step is the reference's bits) with vrndscaleps
// (immediate 8: scale 2^0, round to nearest even, no precision exception) for roundps; vmaxps
// zmm returns its second operand on NaN as the 128-bit form. The clamped integers are in range,
// so the truncating vpmovdb/vpmovdw store them unchanged. The tail is the same sequence under a
// mask (lanes outside it are neither read from x nor stored). The loops and the min/max fold are
// quantize_lanes.hpp's.
#include <immintrin.h>

#include "optimized/kernels/quantize/quantize_lanes.hpp"

namespace onemodel::opt::quantize {
namespace {

// GCC 12's unmasked forms of these intrinsics pass an "undefined" source that -Wuninitialized
// reports (GCC PR 105593, as in attention_avx512.cpp); the zero-masked forms with every lane
// selected are the same instructions.
constexpr __mmask16 kAll = 0xFFFF;

struct Avx512Lanes {
  using F = __m512;
  static constexpr std::size_t kLanes = 16;
  static F splat(float v) noexcept { return _mm512_set1_ps(v); }
  static F load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static __m512i quantize(F x, F scale, F zero_point, F lo, F hi) noexcept {
    const F q = _mm512_maskz_roundscale_ps(kAll, _mm512_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const F t = _mm512_maskz_min_ps(kAll, _mm512_maskz_max_ps(kAll, _mm512_add_ps(q, zero_point), lo), hi);
    return _mm512_maskz_cvttps_epi32(kAll, t);
  }
  template <Out kOut>
  static void store_masked(void* y, std::size_t i, __mmask16 m, __m512i v) noexcept {
    if constexpr (is_byte(kOut)) {
      _mm512_mask_cvtepi32_storeu_epi8(static_cast<std::uint8_t*>(y) + i, m, v);
    } else {
      _mm512_mask_cvtepi32_storeu_epi16(static_cast<std::uint16_t*>(y) + i, m, v);
    }
  }
  template <Out kOut>
  static constexpr std::size_t step() noexcept { return kLanes; }
  template <Out kOut, class Q>
  static void store(void* y, std::size_t i, Q q) noexcept { store_masked<kOut>(y, i, kAll, q(i)); }
  // The last n - i < 16 elements under a mask: masked-off lanes divide 0 by 1 (no exception) and
  // are not stored.
  template <Out kOut, bool kPerLane>
  static void tail(const Run& r, std::size_t i) noexcept {
    if (i == r.n) return;
    const __mmask16 m = static_cast<__mmask16>((1u << (r.n - i)) - 1u);
    constexpr Bounds b = bounds_of(kOut);
    const F s = kPerLane ? _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), m, r.scale + i) : splat(r.scale[0]);
    const F z = kPerLane ? _mm512_maskz_loadu_ps(m, r.zero_point + i) : splat(r.zero_point[0]);
    store_masked<kOut>(r.y, i, m, quantize(_mm512_maskz_loadu_ps(m, r.x + i), s, z, splat(b.lo), splat(b.hi)));
  }
  // As SSE: vminps(v, acc) keeps acc on a NaN v.
  static F lower(F v, F acc) noexcept { return _mm512_maskz_min_ps(kAll, v, acc); }
  static F higher(F v, F acc) noexcept { return _mm512_maskz_max_ps(kAll, v, acc); }
  static void store_floats(float* to, F v) noexcept { _mm512_storeu_ps(to, v); }
};

}  // namespace

void quantize_run__avx512(const Run& run) noexcept { quantize_lanes<Avx512Lanes>(run); }

MinMax min_max__avx512(const float* x, std::size_t n) noexcept { return min_max_lanes<Avx512Lanes>(x, n); }

}  // namespace onemodel::opt::quantize
