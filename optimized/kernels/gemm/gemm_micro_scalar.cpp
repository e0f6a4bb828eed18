// The scalar 4 x 4 microkernel (kernels-gemm.md, table under "Structure": 16 accumulators).
// One accumulator per output, p increasing, product and sum rounded separately
// (exact-mode.md, "Matrix product"); fast mode uses the same plain acc + a*b (kernels-gemm.md,
// "Fast mode"). The build's -ffp-contract=off keeps the compiler from fusing them.
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {

void f32_gemm_4x4__scalar(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                          std::uint32_t flags) {
  constexpr int kMr = 4, kNr = 4;
  float acc[kMr][kNr];
  for (int r = 0; r < kMr; ++r) {
    for (int j = 0; j < kNr; ++j) {
      // exact-mode.md rule 3: start from +0; a later k-block continues from the stored C.
      acc[r][j] = (flags & kGemmAccumulate) != 0 ? c[r * ldc + j] : 0.0f;
    }
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const float* ap = a + p * kMr;
    const float* bp = b + p * ldb;
    for (int r = 0; r < kMr; ++r) {
      for (int j = 0; j < kNr; ++j) {
        const float prod = ap[r] * bp[j];
        acc[r][j] = acc[r][j] + prod;
      }
    }
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  constexpr float kCanonicalNan = __builtin_bit_cast(float, 0x7FC00000u);
  for (int r = 0; r < kMr; ++r) {
    for (int j = 0; j < kNr; ++j) {
      const float v = acc[r][j];
      // exact-mode.md rule 4: every stored NaN is 0x7FC00000.
      c[r * ldc + j] = (canonical && v != v) ? kCanonicalNan : v;
    }
  }
}

}  // namespace onemodel::opt::gemm
