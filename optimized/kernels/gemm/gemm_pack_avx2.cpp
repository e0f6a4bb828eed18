// Packing of A for the AVX2 (MR = 6) and AVX-512 (MR = 12) paths with 128-bit transposes
// (gemm_pack_lanes.hpp), VEX-encoded by this file's flags. Every CPU with the AVX-512 path has
// AVX2 (spec/optimized-engine.md section 6), so the AVX-512 path packs with this file too.
#include "optimized/kernels/gemm/gemm_pack_lanes.hpp"

namespace onemodel::opt::gemm {

void pack_a_6__avx2(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  lanes::pack_a_transposing<6>(a, row0, rows, p0, kc, out);
}

void pack_a_12__avx2(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  lanes::pack_a_transposing<12>(a, row0, rows, p0, kc, out);
}

}  // namespace onemodel::opt::gemm
