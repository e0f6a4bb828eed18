// The 8 x 8 float transpose in AVX2 registers, for kernels that turn 8 rows of 8 values into 8
// vectors across the rows (the tile transpose, tile_avx2.cpp; the direct stem and grouped kernel,
// conv_stem_avx2.cpp; the channel-blocked depthwise kernel, depthwise_direct_lanes_avx2.hpp). Only
// data moves. Include only from files built with the AVX2 flags; the function lives in each
// includer's anonymous namespace, so no out-of-line copy is shared with objects of other flags.
#pragma once

#include <immintrin.h>

namespace onemodel::opt::avx2_transpose {
namespace {

// out[c] lane r = in[r] lane c: pairs interleaved, then quads, then 128-bit halves gathered
// across the rows.
[[gnu::always_inline]] inline void transpose8(const __m256 in[8], __m256 out[8]) noexcept {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(in[i], in[i + 1]);      // per half: a0 b0 a1 b1
    t[i + 1] = _mm256_unpackhi_ps(in[i], in[i + 1]);  // per half: a2 b2 a3 b3
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));          // a0 b0 c0 d0
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));      // a1 b1 c1 d1
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));  // a2 b2 c2 d2
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));  // a3 b3 c3 d3
  }
  for (int c = 0; c < 4; ++c) {
    out[c] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x20);      // columns 0-3: the low halves
    out[c + 4] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x31);  // columns 4-7: the high halves
  }
}

}  // namespace
}  // namespace onemodel::opt::avx2_transpose
