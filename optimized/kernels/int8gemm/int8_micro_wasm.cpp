// The WebAssembly SIMD128 pair kernel, 4 x 16 (int8.md, "Product kernel": the 128-bit portable
// path on the x86 pair layout, G = 2): i32x4.dot_i16x8_s is pmaddwd, a0*b0 + a1*b1 per 32-bit lane
// with the two 32-bit products added modulo 2^32 (exact on shifted operands:
// proofs/int8_accumulation), i32x4.add accumulates modulo 2^32, so S is the other paths' bit for
// bit. B's pairs are widened from int8 by i16x8.load8x8_s (four columns per vector), A's pairs
// (int16) splatted as one 32-bit value.
#include <wasm_simd128.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

void micro_wasm_4x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  constexpr int mr = 4;
  v128_t acc[mr][4];
  for (auto& row : acc) {
    for (auto& v : row) v = wasm_i32x4_splat(0);
  }
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 32;
    const std::int16_t* a = a_panel + p * mr * 2;
    v128_t bj[4];
    for (int j = 0; j < 4; ++j) bj[j] = wasm_i16x8_load8x8(b + j * 8);  // columns 4j..4j+3
    for (int r = 0; r < mr; ++r) {
      std::int32_t pair;
      __builtin_memcpy(&pair, a + r * 2, sizeof pair);
      const v128_t av = wasm_i32x4_splat(pair);
      for (int j = 0; j < 4; ++j) acc[r][j] = wasm_i32x4_add(acc[r][j], wasm_i32x4_dot_i16x8(av, bj[j]));
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < 4; ++j) wasm_v128_store(tile + r * 16 + j * 4, acc[r][j]);
  }
}

}  // namespace onemodel::opt::int8
