// The scalar pair kernel (int8_gemm.hpp): the arithmetic of vpmaddwd written out, a0*b0 + a1*b1
// per pair of k, summed into int32 modulo 2^32. Serves the scalar, SSE, NEON and WebAssembly paths
// (the same layout as AVX2, so the same S on every path).
#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

void micro_scalar_6x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  constexpr std::size_t mr = 6, nr = 16;
  std::uint32_t acc[mr][nr] = {};
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int16_t* a = a_panel + p * mr * 2;
    const std::int8_t* b = b_panel + p * nr * 2;
    for (std::size_t r = 0; r < mr; ++r) {
      const std::int32_t a0 = a[r * 2], a1 = a[r * 2 + 1];
      for (std::size_t c = 0; c < nr; ++c) {
        const std::int32_t pair = a0 * b[c * 2] + a1 * b[c * 2 + 1];  // |pair| <= 2^15
        acc[r][c] += static_cast<std::uint32_t>(pair);
      }
    }
  }
  for (std::size_t r = 0; r < mr; ++r) {
    for (std::size_t c = 0; c < nr; ++c) tile[r * nr + c] = static_cast<std::int32_t>(acc[r][c]);
  }
}

}  // namespace onemodel::opt::int8
