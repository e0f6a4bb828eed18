// AVX2 path of the pooling row loop (optimized/kernels/pool/pool_row.hpp): eight outputs per
// register. _mm256_max_ps(v, acc) is `v > acc ? v : acc` (it returns the second operand when
// either is NaN or both are zero), the reference's "strictly greater replaces" with NaN skipped.
#include <immintrin.h>

#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {
namespace {

struct Avx2Lane {
  static constexpr std::int64_t kWidth = 8;
  template <bool IsMax>
  static __m256 init() noexcept {
    return IsMax ? _mm256_set1_ps(-__builtin_inff()) : _mm256_setzero_ps();
  }
  // Lane j reads p[j * sw]. Stride 2 reads p[0..15] (one past the last tap, see pool_row.hpp):
  // the in-lane shuffle gives p0 p2 p8 p10 | p4 p6 p12 p14, the 64-bit permute puts them in order.
  static __m256 load(const float* p, std::int64_t sw) noexcept {
    if (sw == 1) return _mm256_loadu_ps(p);
    if (sw == 2) {
      const __m256 even = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _MM_SHUFFLE(2, 0, 2, 0));
      return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
    }
    return _mm256_setr_ps(p[0], p[sw], p[2 * sw], p[3 * sw], p[4 * sw], p[5 * sw], p[6 * sw], p[7 * sw]);
  }
  template <bool IsMax>
  static __m256 combine(__m256 acc, __m256 v) noexcept {
    if constexpr (IsMax) {
      return _mm256_max_ps(v, acc);
    } else {
      return _mm256_add_ps(acc, v);
    }
  }
  static void store(float* y, __m256 v) noexcept { _mm256_storeu_ps(y, v); }
};

}  // namespace

void pool_row_f32__avx2(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw,
                        std::int64_t sw, std::int64_t dw, std::int64_t count, float* y) noexcept {
  pool_row<Avx2Lane>(kind, rows, nrows, kw, sw, dw, count, y);
}

}  // namespace onemodel::opt::pool
