// WASM SIMD128 4x4 register transpose of 4-byte elements (tile_paths.hpp): 32-bit then 64-bit
// shuffles, moves only.
#include <wasm_simd128.h>

#include "optimized/kernels/transpose/tile_paths.hpp"

namespace onemodel::opt::tr {
namespace {

struct Block4x4Wasm {
  void operator()(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row) const {
    const v128_t r0 = wasm_v128_load(src), r1 = wasm_v128_load(src + src_col);
    const v128_t r2 = wasm_v128_load(src + 2 * src_col), r3 = wasm_v128_load(src + 3 * src_col);
    const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
    const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
    wasm_v128_store(dst, wasm_i64x2_shuffle(t0, t2, 0, 2));
    wasm_v128_store(dst + dst_row, wasm_i64x2_shuffle(t0, t2, 1, 3));
    wasm_v128_store(dst + 2 * dst_row, wasm_i64x2_shuffle(t1, t3, 0, 2));
    wasm_v128_store(dst + 3 * dst_row, wasm_i64x2_shuffle(t1, t3, 1, 3));
  }
};

}  // namespace

void transpose_tile_4byte__wasm(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,
                                std::int64_t dst_row, std::size_t rows, std::size_t cols) {
  tile_in_blocks<4>(Block4x4Wasm{}, src, src_col, dst, dst_row, rows, cols);
}

}  // namespace onemodel::opt::tr
