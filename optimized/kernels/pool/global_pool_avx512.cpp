// GlobalAveragePool and GlobalMaxPool on the AVX-512 path (pool.hpp, spec/ops/products-conv.md
// section 8.4) with sixteen planes in the lanes: 16 values of each of 16 planes are loaded and
// transposed (avx512_transpose), so vector k holds element i + k of every plane, and each lane
// folds its plane's elements in index order, one operation per element: the sum from +0 (then one
// division by the plane size, NaN canonical) or `v > acc ? v : acc` from the lowest finite float.
// The scalar loop (pool.cpp global_planes) took a plane at a time per chain, element by element.
#include <immintrin.h>

#include <cstddef>
#include <limits>

#include "optimized/kernels/pool/pool_global.hpp"
#include "optimized/kernels/transpose/transpose16_avx512.hpp"

namespace onemodel::opt::pool {
namespace {

constexpr std::size_t kLanes = kGlobalLanes;

template <bool kMax>
__attribute__((always_inline)) inline __m512 fold(__m512 acc, __m512 v) noexcept {
  if constexpr (kMax) {
    // `v > acc ? v : acc` per lane (the second operand when either is NaN or both are zero); the
    // all-lanes masked form avoids GCC 12's -Wmaybe-uninitialized on the unmasked one.
    return _mm512_mask_max_ps(acc, static_cast<__mmask16>(0xFFFF), v, acc);
  } else {
    return _mm512_add_ps(acc, v);
  }
}

// Planes [p0, p0 + count), count <= 16: lane j is plane p0 + j.
template <bool kMax>
void sixteen_planes(const float* x, float* y, std::size_t p0, std::size_t count, std::size_t size) noexcept {
  const __m512 start = kMax ? _mm512_set1_ps(std::numeric_limits<float>::lowest()) : _mm512_setzero_ps();
  __m512 acc = start;
  __m512 rows[kLanes], columns[kLanes];
  for (std::size_t j = count; j < kLanes; ++j) rows[j] = _mm512_setzero_ps();  // absent planes
  std::size_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::size_t j = 0; j < count; ++j) rows[j] = _mm512_loadu_ps(x + (p0 + j) * size + i);
    avx512_transpose::transpose16(rows, columns);
#pragma GCC unroll 16
    for (std::size_t k = 0; k < kLanes; ++k) acc = fold<kMax>(acc, columns[k]);
  }
  if (i < size) {
    const std::size_t left = size - i;
    const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1u);
    for (std::size_t j = 0; j < count; ++j) rows[j] = _mm512_maskz_loadu_ps(mask, x + (p0 + j) * size + i);
    avx512_transpose::transpose16(rows, columns);
    for (std::size_t k = 0; k < left; ++k) acc = fold<kMax>(acc, columns[k]);
  }
  if constexpr (!kMax) {
    acc = _mm512_div_ps(acc, _mm512_set1_ps(static_cast<float>(size)));
    // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
    const __mmask16 nan = _mm512_cmp_ps_mask(acc, acc, _CMP_UNORD_Q);
    acc = _mm512_mask_mov_ps(acc, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
  }
  _mm512_mask_storeu_ps(y + p0, static_cast<__mmask16>((1u << count) - 1u), acc);
}

}  // namespace

void global_planes__avx512(bool max, const float* x, float* y, std::size_t begin, std::size_t end,
                           std::size_t size) noexcept {
  for (std::size_t p = begin; p < end; p += kLanes) {
    const std::size_t count = end - p < kLanes ? end - p : kLanes;
    if (max) {
      sixteen_planes<true>(x, y, p, count, size);
    } else {
      sixteen_planes<false>(x, y, p, count, size);
    }
  }
}

}  // namespace onemodel::opt::pool
