// Widening a row of 16-bit floats eight at a time (AVX2), for packing compact weights
// (gemm_half.hpp): binary16 by the engine's bulk widening (halfconv_avx2.cpp, F16C), bfloat16 by
// the integer arithmetic of the scalar widen_bfloat16 (spec/half-precision.md section 5), lane by
// lane, so the floats are the scalar ones bit for bit (checked over all 65536 patterns by
// compact_weights_test).
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt::gemm {

void widen_binary16_row__avx2(const std::uint16_t* src, float* dst, std::size_t n) {
  widen_16_to_f32__avx2(src, dst, n, false);
}

void widen_bfloat16_row__avx2(const std::uint16_t* src, float* dst, std::size_t n) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i infinity = _mm256_set1_epi32(0x7F800000);
  const __m256i quiet = _mm256_set1_epi32(0x400000);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i b = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256i bits = _mm256_slli_epi32(b, 16);
    // NaN: |bits| > infinity as signed integers (both below 2^31).
    const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, abs_mask), infinity);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_or_si256(bits, _mm256_and_si256(is_nan, quiet)));
  }
  for (; i < n; ++i) dst[i] = widen_bfloat16(src[i]);
}

}  // namespace onemodel::opt::gemm
