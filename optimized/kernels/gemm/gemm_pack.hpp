// Packing of the float32 matrix product (kernels-gemm.md, "Structure" steps 1 and 2; Goto and
// van de Geijn 2008, section 4). Packing only moves values: it cannot change a result.
#pragma once

#include <cstddef>

#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt::gemm {

// Strips of `width` columns needed for `n` columns.
inline std::size_t strip_count(std::size_t n, std::size_t width) noexcept { return (n + width - 1) / width; }

// Packed B: for each block of kKc rows of k (the last may be shorter), the strips of nr columns
// one after the other, element (p, j) of a strip at p * nr + j, a ragged last strip padded with
// +0 (kernels-gemm.md step 1). Floats in all of it.
std::size_t packed_b_size(std::size_t k, std::size_t n, std::size_t nr) noexcept;
// Where strip `strip` of the k-block starting at row p0 begins.
std::size_t packed_b_offset(std::size_t k, std::size_t n, std::size_t nr, std::size_t p0, std::size_t strip) noexcept;
// Packing chunks: kPackStripsPerChunk strips of one k-block each.
std::size_t pack_b_chunk_count(std::size_t k, std::size_t n, std::size_t nr) noexcept;
void pack_b_chunk(std::size_t k, std::size_t n, std::size_t nr, MatrixView b, float* packed, std::size_t chunk);

// Rows [row0, row0 + rows) and k [p0, p0 + kc) of A as strips of mr rows, element (p, r) of a
// strip at p * mr + r, strips kc * mr apart, rows beyond `rows` padded with +0 (kernels-gemm.md
// step 2).
void pack_a_block(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, std::size_t mr,
                  float* out);

}  // namespace onemodel::opt::gemm
