// Packing of A with 4 x 4 transposes in 128-bit registers (kernels-gemm.md, "Structure" step 2),
// included by gemm_pack_sse.cpp and gemm_pack_avx2.cpp so each copy is compiled with its file's
// flags (VEX-encoded in the AVX2 file, so no SSE/AVX transition next to the AVX microkernels).
//
// Row-major A: for each group of 4 k-values, 4 rows at a time are loaded (4 floats each),
// transposed with shuffles and stored as 4 consecutive k-steps of the strip; an MR that is 2 more
// than a multiple of 4 (AVX2's 6) finishes with one 2 x 4 interleave. Shuffles and moves copy
// bits, so NaN payloads, signalling NaNs and signed zeros are kept: the packed floats are
// pack_a_block's, and a product cannot change (exact-mode.md rules 1 to 6 hold unchanged).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "optimized/kernels/gemm/gemm_pack.hpp"

namespace onemodel::opt::gemm::lanes {

template <std::size_t MR>
inline void pack_a_transposing(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc,
                               float* out) {
  static_assert(MR % 2 == 0, "rows go in fours, then at most one pair");
  if (a.col_stride != 1) {
    // Columns contiguous (A given transposed): pack_a_block already reads and writes in order.
    pack_a_block(a, row0, rows, p0, kc, MR, out);
    return;
  }
  for (std::size_t s = 0; s * MR < rows; ++s) {
    const std::size_t valid = std::min(MR, rows - s * MR);
    const float* src[MR];
    for (std::size_t r = 0; r < MR; ++r) {
      src[r] = r < valid ? a.data + static_cast<std::ptrdiff_t>(row0 + s * MR + r) * a.row_stride +
                               static_cast<std::ptrdiff_t>(p0)
                         : kPackZeroRow;  // padding rows of a ragged strip are +0
    }
    float* dst = out + s * MR * kc;
    std::size_t p = 0;
    for (; p + 4 <= kc; p += 4) {
      float* d = dst + p * MR;
      std::size_t r = 0;
      for (; r + 4 <= MR; r += 4) {
        __m128 x0 = _mm_loadu_ps(src[r] + p);
        __m128 x1 = _mm_loadu_ps(src[r + 1] + p);
        __m128 x2 = _mm_loadu_ps(src[r + 2] + p);
        __m128 x3 = _mm_loadu_ps(src[r + 3] + p);
        _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
        _mm_storeu_ps(d + r, x0);
        _mm_storeu_ps(d + MR + r, x1);
        _mm_storeu_ps(d + 2 * MR + r, x2);
        _mm_storeu_ps(d + 3 * MR + r, x3);
      }
      if constexpr (MR % 4 == 2) {
        const __m128 x0 = _mm_loadu_ps(src[r] + p);
        const __m128 x1 = _mm_loadu_ps(src[r + 1] + p);
        const __m128d lo = _mm_castps_pd(_mm_unpacklo_ps(x0, x1));  // (x0[0], x1[0]), (x0[1], x1[1])
        const __m128d hi = _mm_castps_pd(_mm_unpackhi_ps(x0, x1));  // (x0[2], x1[2]), (x0[3], x1[3])
        _mm_storel_pd(reinterpret_cast<double*>(d + r), lo);
        _mm_storeh_pd(reinterpret_cast<double*>(d + MR + r), lo);
        _mm_storel_pd(reinterpret_cast<double*>(d + 2 * MR + r), hi);
        _mm_storeh_pd(reinterpret_cast<double*>(d + 3 * MR + r), hi);
      }
    }
    for (; p < kc; ++p) {
      for (std::size_t r = 0; r < MR; ++r) dst[p * MR + r] = src[r][p];
    }
  }
}

}  // namespace onemodel::opt::gemm::lanes
