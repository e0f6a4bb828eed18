// Packing of the float32 matrix product (kernels-gemm.md, "Structure" steps 1 and 2; Goto and
// van de Geijn 2008, section 4). Packing only moves values: it cannot change a result.
#pragma once

#include <cstddef>

#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt::gemm {

// Strips of `width` columns needed for `n` columns.
inline std::size_t strip_count(std::size_t n, std::size_t width) noexcept { return (n + width - 1) / width; }

// Packed B: for each block of `block` rows of k (the path's kc; the last may be shorter), the
// strips of nr columns one after the other, element (p, j) of a strip at p * nr + j, a ragged last
// strip padded with +0 (kernels-gemm.md step 1). Floats in all of it.
std::size_t packed_b_size(std::size_t k, std::size_t n, std::size_t nr) noexcept;
// Where strip `strip` of the k-block starting at row p0 (a multiple of `block`) begins.
std::size_t packed_b_offset(std::size_t k, std::size_t n, std::size_t nr, std::size_t block, std::size_t p0,
                            std::size_t strip) noexcept;
// Packing chunks: kPackStripsPerChunk strips of one k-block each.
std::size_t pack_b_chunk_count(std::size_t k, std::size_t n, std::size_t nr, std::size_t block) noexcept;
void pack_b_chunk(std::size_t k, std::size_t n, std::size_t nr, std::size_t block, MatrixView b, float* packed,
                  std::size_t chunk);
// One strip of B: rows [p0, p0 + kc), columns [j0, j0 + nr) at out[p * nr + j]; columns at or past
// n are +0. Also used alone for the ragged last strip when B is read in place (gemm.cpp).
void pack_b_strip(MatrixView b, std::size_t n, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t nr,
                  float* out);

// Rows [row0, row0 + rows) and k [p0, p0 + kc) of A as strips of mr rows, element (p, r) of a
// strip at p * mr + r, strips kc * mr apart, rows beyond `rows` padded with +0 (kernels-gemm.md
// step 2). Any mr; the paths call their own PackAFn (below), which gives the same floats.
void pack_a_block(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, std::size_t mr,
                  float* out);

// kMaxKc (512) floats of +0: the source of the padding rows of a ragged last strip, so the
// fixed-mr packers copy every strip the same way.
extern const float kPackZeroRow[512];

// pack_a_block with the path's mr fixed at compile time (Path::pack_a). Pure copies: the packed
// floats are pack_a_block's, bit for bit (NaN payloads and signs included).
using PackAFn = void (*)(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc,
                         float* out);
void pack_a_4(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out);
void pack_a_8(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out);
#if defined(__x86_64__)
// 4 x 4 transposes in 128-bit registers (gemm_pack_sse.cpp, gemm_pack_avx2.cpp).
void pack_a_4__sse41(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out);
void pack_a_6__avx2(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out);
void pack_a_12__avx2(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out);
#endif

// Packed A (PackedA, gemm.hpp): the k-blocks of the path's kc rows of k one after the other (the last may be
// shorter); inside the k-block starting at p0, of kc rows, all of A's rows as strip_count(m, mr)
// strips of mr rows in pack_a_block's layout, strip s at s * mr * kc. Any band of rows starting on
// a strip boundary is then one run of strips in every k-block, so a tile's band need not lie inside
// one tile row of MC (a convolution's im2col strip is filled once for all of a layer's filters,
// sourced_band_shape in gemm.cpp).
inline std::size_t packed_a_size(std::size_t m, std::size_t k, std::size_t mr) noexcept {
  return strip_count(m, mr) * mr * k;
}
// Where rows from row0 (a multiple of mr) of the k-block starting at p0, kc rows of k, begin.
inline std::size_t packed_a_offset(std::size_t m, std::size_t mr, std::size_t row0, std::size_t p0,
                                   std::size_t kc) noexcept {
  return p0 * strip_count(m, mr) * mr + row0 * kc;
}

}  // namespace onemodel::opt::gemm
