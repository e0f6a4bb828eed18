// The register microkernels of the float32 matrix product, one signature for every path
// (DESIGN.md rule 4: loops apart from ISA code; kernels-gemm.md, "Structure" step 3).
//
// A microkernel computes one MR x NR block of C from a packed A strip (element (p, r) at
// a[p * MR + r]) and a B strip (element (p, j) at b[p * ldb + j]: ldb = NR when B is packed, the
// row stride of B when the driver reads a full strip of a row-major B in place) over kc steps of k:
// one accumulator per output, p increasing (exact-mode.md, "Matrix product"). The accumulators
// start from +0 on the first k-block and from the C values an earlier block stored otherwise
// (flag kGemmAccumulate). With kGemmCanonicalNan (exact mode, last k-block) every NaN stored
// becomes 0x7FC00000 (exact-mode.md rule 4). c is written with row stride ldc; MR x NR values
// are always stored (the driver gives a scratch tile at ragged edges).
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt::gemm {

// Which output block a store asks for while its products run (the store kernels' fused_store,
// gemm.cpp's short-k bands): with at least kOwnBlockPrefetchSteps k-steps the block's own lines
// (0 blocks on), with fewer those of the block 64 / kc blocks on, at least two, in the same rows,
// which the rows-first order stores next; 0 for kc = 0. Measured in session 42
// (docs/kernel-performance.md).
inline constexpr std::size_t kOwnBlockPrefetchSteps = 64;
constexpr std::size_t prefetch_blocks_ahead(std::size_t kc) noexcept {
  if (kc == 0 || kc >= kOwnBlockPrefetchSteps) return 0;
  return kOwnBlockPrefetchSteps / kc < 2 ? 2 : kOwnBlockPrefetchSteps / kc;
}

inline constexpr std::uint32_t kGemmAccumulate = 1u;
inline constexpr std::uint32_t kGemmCanonicalNan = 2u;

using MicroKernel = void (*)(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags);

// Fast kernels use the path's fused multiply-add where it has one; exact kernels multiply,
// round, add, round (exact-mode.md rule 1). Paths without FMA use one kernel for both modes.
void f32_gemm_4x4__scalar(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                          std::uint32_t flags);
#if defined(__x86_64__)
void f32_gemm_4x8__sse41(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                         std::uint32_t flags);
void f32_gemm_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags);
void f32_gemm_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags);
void f32_gemm_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                std::uint32_t flags);
void f32_gemm_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                  std::uint32_t flags);
// The fused kernel for an A packed before the call (PackedA: a convolution's weights, read from
// memory once per call rather than from a tile's packing in L2): each step of k also asks the
// cache for the A values 64 steps ahead. The same arithmetic, so the same bits.
void f32_gemm_12x32__avx512_fma_streamed(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::uint32_t flags);
#endif

// The store kernel (optional per path, fast mode): the microkernel for the last k-block of a full
// MR x NR block, which then does the epilogue's work (GemmStoreOps, gemm.hpp) on each accumulator
// before storing it, for the block whose first element is C's (row, col): the bias, residual and
// activation steps of GemmStoreOps. The same values the microkernel would store, through the same
// steps `apply` would run on them.
using StoreKernel = void (*)(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                             std::ptrdiff_t ldc, std::uint32_t flags, const GemmStoreOps& ops, std::size_t row,
                             std::size_t col);
#if defined(__x86_64__)
void f32_gemm_6x16__avx2_fma_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::uint32_t flags, const GemmStoreOps& ops, std::size_t row,
                                   std::size_t col);
void f32_gemm_12x32__avx512_fma_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                      std::ptrdiff_t ldc, std::uint32_t flags, const GemmStoreOps& ops,
                                      std::size_t row, std::size_t col);
// The store kernel with the streamed kernel's look-ahead on A.
void f32_gemm_12x32__avx512_fma_store_streamed(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                               float* c, std::ptrdiff_t ldc, std::uint32_t flags,
                                               const GemmStoreOps& ops, std::size_t row, std::size_t col);
#endif

// Edge kernels (optional per path): the same sequence per output as the path's microkernel for
// the one row (C[0][j], j < cols) or the few columns (C[r][j], r < rows, j < cols) that a thin
// product or a ragged strip keeps of its MR x NR blocks, without computing the rest, several strips
// at once so that independent accumulators hide the multiply-add latency. A and B strips are laid
// out as for the microkernel. The row kernel takes up to 4 NR-strips of B (strip s at
// b + s * b_step) and one row of A (its strip's row 0); the column kernel takes `strips` MR-strips
// of A (strip s at a + s * a_step) and columns [0, cols) of B (b[p * ldb + j]), cols at most
// kColumnKernelCols. C is written only inside the valid part.
using RowKernel = void (*)(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step, std::ptrdiff_t ldb,
                           float* c, std::size_t cols, std::uint32_t flags);
using ColumnKernel = void (*)(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips, const float* b,
                              std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                              std::uint32_t flags);
inline constexpr std::size_t kColumnKernelCols = 4;
inline constexpr std::size_t kRowKernelStrips = 4;
// The narrow kernel: rows [0, rows) and columns [0, cols) of an MR x NR block with cols <= NR / 2,
// one vector per row (for the ragged last strip of a product whose n is not a multiple of NR).
using NarrowKernel = void (*)(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                              std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags);
// The narrow tail kernel is a NarrowKernel for NR / 2 + 1 to NR / 2 + kColumnKernelCols columns:
// the narrow kernel's NR / 2 and the column kernel's last ones in one pass over the A strip (a 7 x
// 7 map's 49 columns leave 17 in their second strip). The column kernel's own pass read A again
// from the second-level cache for one to four columns, a vector per strip and step (49 x 512 x
// 4608: one column took 8.6% of the product, 4.5 times a full column's share). Each output keeps
// its sequence, so the bits of the two kernels.
// The short kernel: rows [0, rows) (rows < MR) and all NR columns of an MR x NR block, for the
// ragged last strip of A (m not a multiple of MR), computing only those rows and storing them
// straight to C: the same sequence per output as the microkernel, so the same bits.
using ShortKernel = void (*)(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                             std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
// The pair kernel: a full MR x 2NR block, B as two NR-strips (b0 with row stride ldb0 for columns
// [0, NR), b1 with ldb1 for [NR, 2NR)), C written for all 2NR columns; the microkernel's sequence
// per output, so its bits. A path has one where a wider block runs faster (AVX-512 exact mode).
using PairKernel = void (*)(std::size_t kc, const float* a, const float* b0, std::ptrdiff_t ldb0, const float* b1,
                            std::ptrdiff_t ldb1, float* c, std::ptrdiff_t ldc, std::uint32_t flags);
#if defined(__x86_64__)
void f32_gemm_pair_12x64__avx512_exact(std::size_t kc, const float* a, const float* b0, std::ptrdiff_t ldb0,
                                       const float* b1, std::ptrdiff_t ldb1, float* c, std::ptrdiff_t ldc,
                                       std::uint32_t flags);
// The AVX2 edge kernels (gemm_edge_avx2.cpp): the row, column, narrow (cols <= 8) and short
// (rows < 6) kernels of the 6 x 16 microkernel, its bits.
void f32_gemm_row_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                 std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags);
void f32_gemm_row_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                   std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags);
void f32_gemm_column_6x16__avx2_fma(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                    const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows,
                                    std::size_t cols, std::uint32_t flags);
void f32_gemm_column_6x16__avx2_exact(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                      const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                      std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_narrow_6x8__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_narrow_6x8__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                     std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_short_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
void f32_gemm_short_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                     std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
void f32_gemm_short_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                      std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
void f32_gemm_short_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                        std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
void f32_gemm_row_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                    std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags);
void f32_gemm_row_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                      std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags);
void f32_gemm_column_12x32__avx512_fma(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                       const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                       std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_column_12x32__avx512_exact(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                         const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                         std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_narrow_12x16__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                       std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags);
void f32_gemm_narrow_12x16__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags);
// The half-narrow kernel: a NarrowKernel for at most 12 columns, 8 in eight lanes and up to 4
// more as the column kernel computes them (a 13 x 13 map's 169 columns leave 9 in their last
// strip, which the narrow kernel computed as 16).
void f32_gemm_half_narrow_12x12__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                            float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                            std::uint32_t flags);
void f32_gemm_half_narrow_12x12__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                              float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                              std::uint32_t flags);
// The narrow tail kernel (above): a NarrowKernel for 17 to 20 columns.
void f32_gemm_narrow_tail_12x20__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                            float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                            std::uint32_t flags);
void f32_gemm_narrow_tail_12x20__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                              float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                              std::uint32_t flags);
// The exact kernels above computed in 256-bit halves (gemm_micro_halves_avx512.cpp), for CPUs that
// split 512-bit instructions (optimized/frame/cpu_traits.hpp): the same bits.
void f32_gemm_12x32__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::uint32_t flags);
void f32_gemm_short_12x32__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                               float* c, std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags);
void f32_gemm_narrow_12x16__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                                float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                                std::uint32_t flags);
#endif
#if defined(__aarch64__)
void f32_gemm_8x12__neon_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags);
void f32_gemm_8x12__neon_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags);
#endif
#if defined(__wasm_simd128__)
void f32_gemm_4x8__wasm_simd128(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                std::uint32_t flags);
#endif

}  // namespace onemodel::opt::gemm
