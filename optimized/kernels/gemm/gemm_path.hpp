// The blocking constants and microkernels of each instruction-set path (kernels-gemm.md, table
// under "Structure"). The driver (gemm.cpp) and the packing (gemm_pack.cpp) read only this.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"
#include "optimized/kernels/gemm/gemm_pack.hpp"

namespace onemodel::opt::gemm {

// kernels-gemm.md, "Structure" step 1 packs B in blocks of KC = 256 rows of k; here KC is a
// constant of each path (Path::kc): 256, and 512 on AVX-512 (docs/design.md, "k-blocks of 512 on
// AVX-512"). kMaxKc bounds every path's, for buffers sized at compile time. A block's length never
// changes a result: a later block continues from the C values the earlier ones stored.
inline constexpr std::size_t kMaxKc = 512;
// kernels-gemm.md, "Structure" step 1: packing work is split into chunks of 8 strips per k-block.
inline constexpr std::size_t kPackStripsPerChunk = 8;
// Packed buffers are aligned to a cache line (aligned vector loads of B strips).
inline constexpr std::size_t kPackAlignment = 64;

// One variant of the family (docs/design.md, "Kernel registry"): named for its full-block
// microkernel, f32_gemm_<mr>x<nr>__<isa>.
struct Path {
  std::string_view name;
  Isa isa;
  std::size_t mr, nr;  // microkernel rows and columns
  std::size_t mc, nc;  // tile rows and columns: one tile is one chunk of work
  std::size_t kc;      // rows of k per block (packed B and A, a tile's pass over C), at most kMaxKc
  MicroKernel fast;
  MicroKernel exact;
  PackAFn pack_a;  // pack_a_block with this path's mr (a copy: never changes a result)
  // Edge kernels (gemm_micro.hpp); nullptr where the path has none (the microkernel then computes
  // the whole block into scratch, with the same bits).
  RowKernel row_fast = nullptr;
  RowKernel row_exact = nullptr;
  ColumnKernel column_fast = nullptr;
  ColumnKernel column_exact = nullptr;
  NarrowKernel narrow_fast = nullptr;
  NarrowKernel narrow_exact = nullptr;
  ShortKernel short_fast = nullptr;
  ShortKernel short_exact = nullptr;
  PairKernel pair_fast = nullptr;
  PairKernel pair_exact = nullptr;
  StoreKernel store_fast = nullptr;  // fast mode's full blocks with the epilogue in their stores
  // Fast mode's full-block and store kernels for an A packed before the call (PackedA), which
  // comes from memory rather than from a tile's packing; nullptr: `fast` and `store_fast` serve.
  MicroKernel fast_streamed = nullptr;
  StoreKernel store_fast_streamed = nullptr;
  // A ragged strip of NR / 2 + 1 to NR / 2 + kColumnKernelCols columns in one kernel per A strip
  // (gemm_micro.hpp, the narrow tail kernel); nullptr: the narrow kernel, then the column kernel.
  NarrowKernel narrow_tail_fast = nullptr;
  NarrowKernel narrow_tail_exact = nullptr;
  // A ragged piece of at most NR / 2 - 4 columns in half-width vectors (gemm_micro.hpp, the
  // half-narrow kernel); nullptr: the narrow kernel.
  NarrowKernel half_narrow_fast = nullptr;
  NarrowKernel half_narrow_exact = nullptr;
};

// The family's list (the registry): every path this build has, best first, scalar last. Tests
// and bench_kernels iterate over it.
std::span<const Path> variants() noexcept;

// The path serving `isa`: the first listed variant this CPU runs whose level is at most isa's
// (kernel_registry.hpp), so the scalar one when nothing else fits (same bits in exact mode,
// exact-mode.md rule 5).
const Path& path_for(Isa isa) noexcept;

}  // namespace onemodel::opt::gemm
