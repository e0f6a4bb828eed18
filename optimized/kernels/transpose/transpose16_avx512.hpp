// The 16 x 16 float transpose in AVX-512 registers, for kernels that turn 16 rows of 16 values
// into 16 vectors across the rows (the channel-blocked depthwise kernel, depthwise_blocked.hpp; the
// global pools, pool.hpp). Only data moves. Include only from files built with the AVX-512 flags.
#pragma once

#include <immintrin.h>

namespace onemodel::opt::avx512_transpose {

// out[c] = column c of the 16 x 16 matrix whose rows are in[0..15] (only data moves): pairs
// interleaved, then quads, then 128-bit quarters gathered across the rows.
//
// The masked forms with every lane selected: GCC 12's unmasked ones pass _mm512_undefined_ps(),
// which -Wuninitialized reports (an error in the checked build).
inline constexpr __mmask16 kAll = 0xFFFF;
inline __m512 unpacklo(__m512 a, __m512 b) noexcept { return _mm512_mask_unpacklo_ps(a, kAll, a, b); }
inline __m512 unpackhi(__m512 a, __m512 b) noexcept { return _mm512_mask_unpackhi_ps(a, kAll, a, b); }
template <int kImm>
inline __m512 shuffle(__m512 a, __m512 b) noexcept {
  return _mm512_mask_shuffle_ps(a, kAll, a, b, kImm);
}
template <int kImm>
inline __m512 shuffle_quarters(__m512 a, __m512 b) noexcept {
  return _mm512_mask_shuffle_f32x4(a, kAll, a, b, kImm);
}

inline void transpose16(const __m512 in[16], __m512 out[16]) noexcept {
  __m512 t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = unpacklo(in[i], in[i + 1]);      // per quarter: a0 b0 a1 b1
    t[i + 1] = unpackhi(in[i], in[i + 1]);  // per quarter: a2 b2 a3 b3
  }
  for (int i = 0; i < 16; i += 4) {
    u[i] = shuffle<0x44>(t[i], t[i + 2]);          // column 0 of rows i..i+3, per quarter
    u[i + 1] = shuffle<0xEE>(t[i], t[i + 2]);      // column 1
    u[i + 2] = shuffle<0x44>(t[i + 1], t[i + 3]);  // column 2
    u[i + 3] = shuffle<0xEE>(t[i + 1], t[i + 3]);  // column 3
  }
  // u[4g + c] quarter q: rows 4g..4g+3 of column 4q + c.
  for (int c = 0; c < 4; ++c) {
    const __m512 v0 = shuffle_quarters<0x88>(u[c], u[4 + c]);       // quarters 0, 2 of rows 0-7
    const __m512 v1 = shuffle_quarters<0xDD>(u[c], u[4 + c]);       // quarters 1, 3 of rows 0-7
    const __m512 v2 = shuffle_quarters<0x88>(u[8 + c], u[12 + c]);  // quarters 0, 2 of rows 8-15
    const __m512 v3 = shuffle_quarters<0xDD>(u[8 + c], u[12 + c]);  // quarters 1, 3 of rows 8-15
    out[c] = shuffle_quarters<0x88>(v0, v2);
    out[8 + c] = shuffle_quarters<0xDD>(v0, v2);
    out[4 + c] = shuffle_quarters<0x88>(v1, v3);
    out[12 + c] = shuffle_quarters<0xDD>(v1, v3);
  }
}

}  // namespace onemodel::opt::avx512_transpose
