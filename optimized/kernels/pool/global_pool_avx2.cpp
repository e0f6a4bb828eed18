// GlobalAveragePool and GlobalMaxPool on the AVX2 path (pool.hpp, spec/ops/products-conv.md
// section 8.4), the eight-lane twin of global_pool_avx512.cpp: 8 values of each of 8 planes are
// loaded and transposed (avx2_transpose), so vector k holds element i + k of every plane, and each
// lane folds its plane's elements in index order, one operation per element: the sum from +0
// (then one division by the plane size, NaN canonical) or `v > acc ? v : acc` from the lowest
// finite float. The scalar loop (pool.cpp global_planes) is the same fold, eight planes as eight
// scalar chains; on a plane larger than a chunk's work it ran one plane a chunk, one chain
// (EfficientNet-B0's squeeze of 32 x 112 x 112: 371 us on Zen 3).
#include <immintrin.h>

#include <cstddef>
#include <limits>

#include "optimized/kernels/pool/pool_global.hpp"
#include "optimized/kernels/transpose/transpose8_avx2.hpp"

namespace onemodel::opt::pool {
namespace {

constexpr std::size_t kLanes = kGlobalGroup;

template <bool kMax>
[[gnu::always_inline]] inline __m256 fold(__m256 acc, __m256 v) noexcept {
  if constexpr (kMax) {
    // `v > acc ? v : acc` per lane: vmaxps returns its second operand when either is NaN or both
    // are zeros, as the scalar loop keeps acc then.
    return _mm256_max_ps(v, acc);
  } else {
    return _mm256_add_ps(acc, v);
  }
}

// Lanes [0, n) all ones (n in 0..8): the mask of _mm256_maskload_ps / _mm256_maskstore_ps.
inline __m256i first_lanes(std::size_t n) noexcept {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Planes [p0, p0 + count), count <= 8: lane j is plane p0 + j.
template <bool kMax>
void eight_planes(const float* x, float* y, std::size_t p0, std::size_t count, std::size_t size) noexcept {
  __m256 acc = kMax ? _mm256_set1_ps(std::numeric_limits<float>::lowest()) : _mm256_setzero_ps();
  __m256 rows[kLanes], columns[kLanes];
  for (std::size_t j = count; j < kLanes; ++j) rows[j] = _mm256_setzero_ps();  // absent planes
  std::size_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::size_t j = 0; j < count; ++j) rows[j] = _mm256_loadu_ps(x + (p0 + j) * size + i);
    avx2_transpose::transpose8(rows, columns);
#pragma GCC unroll 8
    for (std::size_t k = 0; k < kLanes; ++k) acc = fold<kMax>(acc, columns[k]);
  }
  if (i < size) {
    const std::size_t left = size - i;
    const __m256i mask = first_lanes(left);
    for (std::size_t j = 0; j < count; ++j) rows[j] = _mm256_maskload_ps(x + (p0 + j) * size + i, mask);
    avx2_transpose::transpose8(rows, columns);
    for (std::size_t k = 0; k < left; ++k) acc = fold<kMax>(acc, columns[k]);
  }
  if constexpr (!kMax) {
    acc = _mm256_div_ps(acc, _mm256_set1_ps(static_cast<float>(size)));
    // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
    acc = _mm256_blendv_ps(acc, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(acc, acc, _CMP_UNORD_Q));
  }
  _mm256_maskstore_ps(y + p0, first_lanes(count), acc);
}

}  // namespace

void global_planes__avx2(bool max, const float* x, float* y, std::size_t begin, std::size_t end,
                         std::size_t size) noexcept {
  for (std::size_t p = begin; p < end; p += kLanes) {
    const std::size_t count = end - p < kLanes ? end - p : kLanes;
    if (max) {
      eight_planes<true>(x, y, p, count, size);
    } else {
      eight_planes<false>(x, y, p, count, size);
    }
  }
}

}  // namespace onemodel::opt::pool
