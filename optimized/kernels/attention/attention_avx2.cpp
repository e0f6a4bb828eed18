// Attention work items on the avx2 path (attention_entries.inc with lanes_avx2.hpp), with the fast
// flavour's key packing and horizontal reductions specialised for 8 lanes (attention_fast_body.hpp;
// the layout is not part of kernels-attention.md's definition).
#include <immintrin.h>

#include "optimized/kernels/vexp/lanes_avx2.hpp"
#include "optimized/kernels/attention/attention_fast_body.hpp"

namespace onemodel::opt::attention {

// kt[x * 64 + j] = k[j][x] * ks by 8 x 8 register transposes (element by element, packing cost as
// much as the score product). Keys past n load as zero (the block's padding); columns past d are
// masked off.
template <>
struct KeyPack<avx2::Lanes> {
  static void pack(float* kt, const float* k, std::ptrdiff_t row_stride, std::size_t n, std::size_t d,
                   float ks) noexcept {
    const __m256 ksv = _mm256_set1_ps(ks);
    for (std::size_t j0 = 0; j0 < n; j0 += 8) {  // the score tiles read only the vectors holding keys
      for (std::size_t x0 = 0; x0 < d; x0 += 8) {
        const std::size_t cols = d - x0 < 8 ? d - x0 : 8;
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i cm = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cols)), lane);
        __m256 r[8];
        for (std::size_t i = 0; i < 8; ++i) {
          r[i] = j0 + i < n ? _mm256_mul_ps(_mm256_maskload_ps(k + static_cast<std::ptrdiff_t>(j0 + i) * row_stride +
                                                                   static_cast<std::ptrdiff_t>(x0),
                                                               cm),
                                            ksv)
                            : _mm256_setzero_ps();
        }
        const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
        const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
        const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
        const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
        // u[c] (rows 0-3) and u[4 + c] (rows 4-7) hold column 4L + c in 128-bit lane L.
        const __m256 u[8] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                             _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE),
                             _mm256_shuffle_ps(t4, t6, 0x44), _mm256_shuffle_ps(t4, t6, 0xEE),
                             _mm256_shuffle_ps(t5, t7, 0x44), _mm256_shuffle_ps(t5, t7, 0xEE)};
        for (std::size_t c = 0; c < 4; ++c) {
          if (c < cols) _mm256_storeu_ps(kt + (x0 + c) * 64 + j0, _mm256_permute2f128_ps(u[c], u[4 + c], 0x20));
          if (4 + c < cols) _mm256_storeu_ps(kt + (x0 + 4 + c) * 64 + j0, _mm256_permute2f128_ps(u[c], u[4 + c], 0x31));
        }
      }
    }
  }
};

template <>
struct Horizontal<avx2::Lanes> {
  static float max(__m256 v) noexcept {  // lanes are never NaN here
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static float sum(__m256 v) noexcept {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};

}  // namespace onemodel::opt::attention

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/attention/attention_entries.inc"
