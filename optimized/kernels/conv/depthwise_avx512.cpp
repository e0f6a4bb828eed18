// The AVX-512 path of the depthwise plane walk (kernels-depthwise.md): 16 lanes of neighbouring
// output columns; narrower outputs use 8 lanes, then 4, then the scalar twin (the widest lane type
// that fits the output width, as on the AVX2 path). Each lane is one output with the taps in the
// stated order, so the lane width never changes a result (exact-mode.md rules 2 and 5). Fast mode:
// one fused multiply-add per tap on every lane type.
#include <immintrin.h>

#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {
namespace {

struct Avx512Lanes {
  using V = __m512;
  static constexpr std::size_t kWidth = 16;
  static V zero() noexcept { return _mm512_setzero_ps(); }
  static V set1(float v) noexcept { return _mm512_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm512_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm512_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm512_fmadd_ps(w, x, acc); }
  // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
  static V canonical(V v) noexcept {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v,
                                _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
  }
};

struct FusedOctLanes {
  using V = __m256;
  static constexpr std::size_t kWidth = 8;
  static V zero() noexcept { return _mm256_setzero_ps(); }
  static V set1(float v) noexcept { return _mm256_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm256_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm256_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm256_fmadd_ps(w, x, acc); }
  static V canonical(V v) noexcept {
    return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
};

struct FusedQuadLanes {
  using V = __m128;
  static constexpr std::size_t kWidth = 4;
  static V zero() noexcept { return _mm_setzero_ps(); }
  static V set1(float v) noexcept { return _mm_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm_fmadd_ps(w, x, acc); }
  static V canonical(V v) noexcept {
    return _mm_blendv_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_cmpunord_ps(v, v));
  }
};

}  // namespace

void depthwise_plane_avx512(const DepthwisePlaneJob& job) {
  if (job.out_w >= Avx512Lanes::kWidth) {
    depthwise_detail::walk_plane<Avx512Lanes>(job);
  } else if (job.out_w >= FusedOctLanes::kWidth) {
    depthwise_detail::walk_plane<FusedOctLanes>(job);
  } else if (job.out_w >= FusedQuadLanes::kWidth) {
    depthwise_detail::walk_plane<FusedQuadLanes>(job);
  } else {
    depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<true>>(job);
  }
}

// Stride 1: whole vectors, a masked tail. Stride 2: sixteen even-indexed values of two loads picked
// by one two-source permute; the loads never touch a value after the last one needed (masked
// off), which may lie past the end of the input.
void depthwise_phase_rows_avx512(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                                 std::size_t rows, float* out, std::size_t out_step) {
  const std::size_t full = count / 16 * 16, n = count - full;
  const __mmask16 tail = static_cast<__mmask16>((1u << n) - 1u);
  if (stride == 1) {
    for (std::size_t r = 0; r < rows; ++r, src += src_step, out += out_step) {
      for (std::size_t j = 0; j < full; j += 16) _mm512_storeu_ps(out + j, _mm512_loadu_ps(src + j));
      if (n != 0) _mm512_mask_storeu_ps(out + full, tail, _mm512_maskz_loadu_ps(tail, src + full));
    }
    return;
  }
  if (stride == 2) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    // The tail's n values need src[2 * full .. 2 * full + 2n - 2]: 2n - 1 source values.
    const std::size_t values = n == 0 ? 0 : 2 * n - 1;
    const __mmask16 lo_mask =
        values >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << values) - 1u);
    const __mmask16 hi_mask = values > 16 ? static_cast<__mmask16>((1u << (values - 16)) - 1u) : 0;
    for (std::size_t r = 0; r < rows; ++r, src += src_step, out += out_step) {
      for (std::size_t j = 0; j < full; j += 16) {
        const __m512 lo = _mm512_loadu_ps(src + 2 * j);
        const __m512 hi = _mm512_maskz_loadu_ps(0x7FFF, src + 2 * j + 16);
        _mm512_storeu_ps(out + j, _mm512_permutex2var_ps(lo, even, hi));
      }
      if (n != 0) {
        const __m512 lo = _mm512_maskz_loadu_ps(lo_mask, src + 2 * full);
        const __m512 hi = _mm512_maskz_loadu_ps(hi_mask, src + 2 * full + 16);
        _mm512_mask_storeu_ps(out + full, tail, _mm512_permutex2var_ps(lo, even, hi));
      }
    }
    return;
  }
  for (std::size_t r = 0; r < rows; ++r, src += src_step, out += out_step) {
    for (std::size_t j = 0; j < count; ++j) out[j] = src[j * stride];
  }
}

}  // namespace onemodel::opt
