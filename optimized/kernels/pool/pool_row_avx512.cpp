// AVX-512 path of the pooling row loop (optimized/kernels/pool/pool_row.hpp): sixteen outputs per
// register, and the last fewer than sixteen in one masked step instead of one at a time (a 7 x 7 or
// 14 x 14 map is mostly tail for a 16-wide loop). _mm512_max_ps(v, acc) is `v > acc ? v : acc`
// (it returns the second operand when either is NaN or both are zero), the reference's "strictly
// greater replaces" with NaN taps skipped; the sum adds in tap order as every path does.
#include <immintrin.h>

#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {
namespace {

struct Avx512Lane {
  static constexpr std::int64_t kWidth = 16;
  template <bool IsMax>
  static __m512 init() noexcept {
    return IsMax ? _mm512_set1_ps(-__builtin_inff()) : _mm512_setzero_ps();
  }
  // The first n lanes (n <= 16) of lane j = p[j * sw]; masked-off lanes are not read (no fault).
  // Stride 2 reads p[0 .. 2n - 1], one past lane n - 1's element, as the unmasked loop does.
  static __m512 load_partial(const float* p, std::int64_t sw, std::int64_t n) noexcept {
    if (sw == 1) return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1u), p);
    if (sw == 2) {
      const std::int64_t pairs = 2 * n;
      const __mmask16 low = static_cast<__mmask16>(pairs >= 16 ? 0xFFFFu : (1u << pairs) - 1u);
      const __mmask16 high = static_cast<__mmask16>(pairs <= 16 ? 0u : (1u << (pairs - 16)) - 1u);
      const __m512 a = _mm512_maskz_loadu_ps(low, p);
      // p + 16 is formed only when the span reaches it (it may lie past the row's end otherwise).
      const __m512 b = high != 0 ? _mm512_maskz_loadu_ps(high, p + 16) : _mm512_setzero_ps();
      const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      return _mm512_permutex2var_ps(a, even, b);
    }
    alignas(64) float lanes[16] = {};
    for (std::int64_t j = 0; j < n; ++j) lanes[j] = p[j * sw];
    return _mm512_load_ps(lanes);
  }
  static __m512 load(const float* p, std::int64_t sw) noexcept { return load_partial(p, sw, 16); }
  template <bool IsMax>
  static __m512 combine(__m512 acc, __m512 v) noexcept {
    if constexpr (IsMax) {
      // The all-lanes masked form of _mm512_max_ps(v, acc): GCC 12's unmasked one passes an
      // undefined vector through and warns (-Wmaybe-uninitialized) under -Werror builds.
      return _mm512_mask_max_ps(acc, static_cast<__mmask16>(0xFFFFu), v, acc);
    } else {
      return _mm512_add_ps(acc, v);
    }
  }
  static void store(float* y, __m512 v) noexcept { _mm512_storeu_ps(y, v); }
  static void store_partial(float* y, __m512 v, std::int64_t n) noexcept {
    _mm512_mask_storeu_ps(y, static_cast<__mmask16>((1u << n) - 1u), v);
  }
};

}  // namespace

void pool_row_f32__avx512(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw, std::int64_t sw,
                          std::int64_t dw, std::int64_t count, float* y) noexcept {
  pool_row<Avx512Lane>(kind, rows, nrows, kw, sw, dw, count, y);
}

}  // namespace onemodel::opt::pool
