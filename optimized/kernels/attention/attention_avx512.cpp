// Attention work items on the avx512 path (attention_entries.inc with lanes_avx512.hpp), with the
// fast flavour's key packing and horizontal reductions specialised for 16 lanes
// (attention_fast_body.hpp; the layout is not part of kernels-attention.md's definition).
#include <immintrin.h>

#include "optimized/kernels/vexp/lanes_avx512.hpp"
#include "optimized/kernels/attention/attention_fast_body.hpp"

namespace onemodel::opt::attention {

// GCC 12.2's unmasked unpack, shuffle and extract intrinsics pass an "undefined" source that
// -Wuninitialized reports (GCC PR 105593, as in lanes_avx512.hpp); the zero-masked forms with every
// lane selected are the same operations.
constexpr __mmask16 kAll = 0xFFFF;
constexpr __mmask8 kAll8 = 0xFF;

// kt[x * 64 + j] = k[j][x] * ks by 16 x 16 register transposes: packing element by element cost as
// much as the score product itself (one packed element feeds only 32 rows x 1 key of scores).
// Keys past n load as zero, which is the block's zero padding; columns past d are masked off.
template <>
struct KeyPack<avx512::Lanes> {
  static void pack(float* kt, const float* k, std::ptrdiff_t row_stride, std::size_t n, std::size_t d,
                   float ks) noexcept {
    const __m512 ksv = _mm512_set1_ps(ks);
    for (std::size_t j0 = 0; j0 < n; j0 += 16) {  // the score tiles read only the vectors holding keys
      for (std::size_t x0 = 0; x0 < d; x0 += 16) {
        const std::size_t cols = d - x0 < 16 ? d - x0 : 16;
        const __mmask16 cm = static_cast<__mmask16>((1u << cols) - 1u);
        __m512 r[16];
        for (std::size_t i = 0; i < 16; ++i) {
          r[i] = j0 + i < n ? _mm512_mul_ps(_mm512_maskz_loadu_ps(cm, k + static_cast<std::ptrdiff_t>(j0 + i) * row_stride +
                                                                          static_cast<std::ptrdiff_t>(x0)),
                                            ksv)
                            : _mm512_setzero_ps();
        }
        __m512 a[16], b[16];
        for (std::size_t i = 0; i < 8; ++i) {
          a[2 * i] = _mm512_maskz_unpacklo_ps(kAll, r[2 * i], r[2 * i + 1]);
          a[2 * i + 1] = _mm512_maskz_unpackhi_ps(kAll, r[2 * i], r[2 * i + 1]);
        }
        // b[4i + c] holds, in 128-bit lane L, column 4L + c of rows 4i .. 4i + 3.
        for (std::size_t i = 0; i < 4; ++i) {
          const __m512d a0 = _mm512_castps_pd(a[4 * i]), a1 = _mm512_castps_pd(a[4 * i + 1]);
          const __m512d a2 = _mm512_castps_pd(a[4 * i + 2]), a3 = _mm512_castps_pd(a[4 * i + 3]);
          b[4 * i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, a0, a2));
          b[4 * i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, a0, a2));
          b[4 * i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, a1, a3));
          b[4 * i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, a1, a3));
        }
        for (std::size_t c = 0; c < 4; ++c) {
          const __m512 lo01 = _mm512_maskz_shuffle_f32x4(kAll, b[c], b[4 + c], 0x44);
          const __m512 hi01 = _mm512_maskz_shuffle_f32x4(kAll, b[c], b[4 + c], 0xEE);
          const __m512 lo23 = _mm512_maskz_shuffle_f32x4(kAll, b[8 + c], b[12 + c], 0x44);
          const __m512 hi23 = _mm512_maskz_shuffle_f32x4(kAll, b[8 + c], b[12 + c], 0xEE);
          const __m512 col[4] = {_mm512_maskz_shuffle_f32x4(kAll, lo01, lo23, 0x88), _mm512_maskz_shuffle_f32x4(kAll, lo01, lo23, 0xDD),
                                 _mm512_maskz_shuffle_f32x4(kAll, hi01, hi23, 0x88), _mm512_maskz_shuffle_f32x4(kAll, hi01, hi23, 0xDD)};
          for (std::size_t l = 0; l < 4; ++l) {
            const std::size_t x = 4 * l + c;  // column within the 16
            if (x < cols) _mm512_storeu_ps(kt + (x0 + x) * 64 + j0, col[l]);
          }
        }
      }
    }
  }
};

template <>
struct Horizontal<avx512::Lanes> {
  static float max(__m512 v) noexcept {  // lanes are never NaN here
    __m256 h = _mm256_max_ps(_mm512_maskz_extractf32x8_ps(kAll8, v, 0), _mm512_maskz_extractf32x8_ps(kAll8, v, 1));
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static float sum(__m512 v) noexcept {
    __m256 h = _mm256_add_ps(_mm512_maskz_extractf32x8_ps(kAll8, v, 0), _mm512_maskz_extractf32x8_ps(kAll8, v, 1));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};

}  // namespace onemodel::opt::attention

#define ONEMODEL_KERNEL_ISA avx512
#include "optimized/kernels/attention/attention_entries.inc"
