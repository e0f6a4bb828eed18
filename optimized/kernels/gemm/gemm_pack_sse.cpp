// Packing of A for the SSE4.1 path (MR = 4) with 128-bit transposes (gemm_pack_lanes.hpp).
#include "optimized/kernels/gemm/gemm_pack_lanes.hpp"

namespace onemodel::opt::gemm {

void pack_a_4__sse41(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  lanes::pack_a_transposing<4>(a, row0, rows, p0, kc, out);
}

}  // namespace onemodel::opt::gemm
