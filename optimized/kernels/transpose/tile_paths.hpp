// Per-instruction-set tiles of the 4-byte transpose (file name = function name, DESIGN.md rule 5),
// listed in transpose_list.inc:
// dst[i * dst_row + j] = src[i + j * src_col] for i < rows, j < cols. Register transposes of 8x8
// (AVX2) or 4x4 (SSE4.1, NEON, WASM SIMD128) blocks, scalar edges. Pure moves: no arithmetic
// touches the bits, so every path gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

namespace onemodel::opt::tr {

#define ONEMODEL_TR_VARIANT(suffix, isa, name)                                                               \
  void transpose_tile_4byte__##suffix(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,     \
                                      std::int64_t dst_row, std::size_t rows, std::size_t cols);
#define ONEMODEL_TR_SCALAR_VARIANT(name)
#include "optimized/kernels/transpose/transpose_list.inc"

using TileFn = void (*)(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row,
                        std::size_t rows, std::size_t cols);

// One variant of the family (kernel_registry.hpp): its 4-byte tile, nullptr for the scalar one.
struct Variant {
  std::string_view name;
  Isa isa;
  TileFn tile;
};

// The registry: every variant this build has, best first, scalar last.
std::span<const Variant> variants() noexcept;

// The blocked walk shared by the paths: whole B x B blocks through `block`, the ragged edges
// element by element. Instantiated by each path with its own block type.
template <std::size_t B, class Block>
void tile_in_blocks(Block block, const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,
                    std::int64_t dst_row, std::size_t rows, std::size_t cols) {
  const std::size_t full_rows = rows - rows % B;
  const std::size_t full_cols = cols - cols % B;
  for (std::size_t i = 0; i < full_rows; i += B) {
    for (std::size_t j = 0; j < full_cols; j += B) {
      block(src + static_cast<std::int64_t>(i) + static_cast<std::int64_t>(j) * src_col, src_col,
            dst + static_cast<std::int64_t>(i) * dst_row + static_cast<std::int64_t>(j), dst_row);
    }
  }
  for (std::size_t i = 0; i < rows; ++i) {
    std::uint32_t* row = dst + static_cast<std::int64_t>(i) * dst_row;
    const std::size_t j0 = i < full_rows ? full_cols : 0;
    for (std::size_t j = j0; j < cols; ++j) row[j] = src[static_cast<std::int64_t>(i) + static_cast<std::int64_t>(j) * src_col];
  }
}

}  // namespace onemodel::opt::tr
