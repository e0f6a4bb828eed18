// SSE4.1 path of the pooling row loop (optimized/kernels/pool/pool_row.hpp): four outputs per
// register. _mm_max_ps(v, acc) is `v > acc ? v : acc` (it returns the second operand when either
// is NaN or both are zero), the reference's "strictly greater replaces" with NaN taps skipped.
#include <immintrin.h>

#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {
namespace {

struct SseLane {
  static constexpr std::int64_t kWidth = 4;
  template <bool IsMax>
  static __m128 init() noexcept {
    return IsMax ? _mm_set1_ps(-__builtin_inff()) : _mm_setzero_ps();
  }
  // Lane j reads p[j * sw]. Stride 2 reads p[0..7] (one past the last tap, see pool_row.hpp).
  static __m128 load(const float* p, std::int64_t sw) noexcept {
    if (sw == 1) return _mm_loadu_ps(p);
    if (sw == 2) return _mm_shuffle_ps(_mm_loadu_ps(p), _mm_loadu_ps(p + 4), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm_setr_ps(p[0], p[sw], p[2 * sw], p[3 * sw]);
  }
  template <bool IsMax>
  static __m128 combine(__m128 acc, __m128 v) noexcept {
    if constexpr (IsMax) {
      return _mm_max_ps(v, acc);
    } else {
      return _mm_add_ps(acc, v);
    }
  }
  static void store(float* y, __m128 v) noexcept { _mm_storeu_ps(y, v); }
};

}  // namespace

void pool_row_f32__sse(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw, std::int64_t sw,
                       std::int64_t dw, std::int64_t count, float* y) noexcept {
  pool_row<SseLane>(kind, rows, nrows, kw, sw, dw, count, y);
}

}  // namespace onemodel::opt::pool
