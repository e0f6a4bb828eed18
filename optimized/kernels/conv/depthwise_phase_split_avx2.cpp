// The one-pass stride-2 phase split on AVX2 (depthwise_phase_split.hpp). Compiled with the AVX2
// flags of cmake/kernel_sources.cmake; called only on the AVX2 path.
#include <immintrin.h>

#include <algorithm>

#include "optimized/kernels/conv/depthwise_phase_split.hpp"

namespace onemodel::opt {

namespace {

// Pairs m .. m+7: even[m + i] = in[2m + 2i], odd[m + i] = in[2m + 2i + 1]. lo = columns 2m .. 2m+3
// | 2m+8 .. 2m+11, hi = 2m+4 .. 2m+7 | 2m+12 .. 2m+15 (128-bit loads, no cross-lane shuffle); then
// one in-lane shuffle per phase puts them in order. On Zen 3 this ran 1.15x faster than two
// 256-bit loads, two in-lane shuffles and two vpermpd.
inline void split8(const float* in, std::size_t m, float* even, float* odd) noexcept {
  const __m256 lo =
      _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(in + 2 * m)), _mm_loadu_ps(in + 2 * m + 8), 1);
  const __m256 hi =
      _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(in + 2 * m + 4)), _mm_loadu_ps(in + 2 * m + 12), 1);
  _mm256_storeu_ps(even + m, _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
  _mm256_storeu_ps(odd + m, _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
}

}  // namespace

void depthwise_phase_split__avx2(const float* in, std::size_t src_step, std::size_t rows, float* even,
                                 std::size_t even_count, float* odd, std::size_t odd_count,
                                 std::size_t out_step) noexcept {
  // Eight pairs a step while both phases take all eight: then src[2m + 15] is an odd column
  // below 2 * odd_count, so never past the row. A last step moved back to end at `both` covers
  // the pairs left (its overlap rewrites the same values), so only a phase's one column past
  // `both` is copied alone (rows of 28 pairs, 5x5 at 56 wide: 1.03x faster than the scalar tail).
  const std::size_t both = std::min(even_count, odd_count);
  const std::size_t tail_from = both < 8 ? 0 : both;
  for (std::size_t r = 0; r < rows; ++r, in += src_step, even += out_step, odd += out_step) {
    std::size_t m = 0;
    for (; m + 8 <= both; m += 8) split8(in, m, even, odd);
    if (m < both && both >= 8) split8(in, both - 8, even, odd);
    for (std::size_t j = tail_from; j < even_count; ++j) even[j] = in[2 * j];
    for (std::size_t j = tail_from; j < odd_count; ++j) odd[j] = in[2 * j + 1];
  }
}

}  // namespace onemodel::opt
