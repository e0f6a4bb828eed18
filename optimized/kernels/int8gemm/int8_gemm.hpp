// The integer product kernel (spec-source int8.md, "Product kernel"): C = (A - zA)(B - zB) on 8-bit
// operands with int32 results, computed as S = sum_k A'B' on the raw integers in the shifted
// (int8) domain and corrected afterwards:
//   A' = A - 128 for uint8 A, A for int8 A (the same for B); zA' and zB' likewise;
//   C[m,n] = S[m,n] - zA'[m] colSum[n] - zB'[n] rowSum[m] + K zA'[m] zB'[n]
// with colSum[n] = sum_k B'[k,n] and rowSum[m] = sum_k A'[m,k]. Every sum and the correction are
// taken modulo 2^32; the result fits int32 while K * 128 * 128 < 2^31 (proofs/int8_accumulation),
// so it is exact, and every path and thread count gives the same bits.
//
// Layout (G = 2, the x86 pair layout, which every path shares for B): B is packed once into panels
// of nr columns, k in pairs ([pair][column][2] int8, k padded with zeros to even); A is packed per
// block of rows into panels of mr rows ([pair][row][2] int16), or for the SDOT kernel in quads of k
// ([quad][row][4] int8; B's pairs are regrouped into quads in registers). Work is cut into
// blocks of kMc rows, a constant, so what a chunk computes never depends on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt::int8 {

// Rows of A per chunk of work (int8.md: Mc = 48, a multiple of every path's mr: 3, 4, 6 and 12).
inline constexpr std::size_t kMc = 48;
// The largest K accepted: K * 128 * 128 < 2^31 keeps S in int32 (proofs/int8_accumulation).
inline constexpr std::size_t kMaxK = 131071;

// S[mr x nr] (row-major, leading dimension nr) from `pairs` pairs of k of one A panel and one B
// panel (A panel: [pair][row][2] int16).
using MicroKernel = void (*)(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel,
                             std::int32_t* tile);
// The same for a kernel that reads A as groups of four k (int8.md, "Arm with dot product": G = 4):
// A panel [quad][row][4] int8 (quad q holds pairs 2q and 2q + 1; the second is zero past `pairs`),
// B panel the pair layout above, regrouped in registers, so that B is packed the same way for it.
using QuadMicroKernel = void (*)(std::size_t pairs, const std::int8_t* a_panel, const std::int8_t* b_panel,
                                 std::int32_t* tile);

// One variant of the family (kernel_registry.hpp; docs/design.md, "Kernel registry").
struct Path {
  Isa isa;
  std::size_t mr, nr;
  MicroKernel micro;          // nullptr when the kernel reads A in quads (then `quad_micro`)
  const char* name = "";      // the grammar's name, i8_gemm_<mr>x<nr>__<isa>[_<feature>]
  QuadMicroKernel quad_micro = nullptr;
  bool (*feature)() noexcept = nullptr;  // a further CPU check (VNNI, the Arm dot product), or none
};

// The path of `isa`: the best micro kernel of that instruction-set level this CPU runs (AVX-512
// with VNNI when the CPU reports AVX512_VNNI, NEON with SDOT when it reports the dot product).
// Every variant of one Isa has the same nr and the same B layout, so a B packed for `isa` serves
// each of them; a B packed for another nr is refused.
const Path& path_for(Isa isa) noexcept;

// Every micro kernel of `isa` that this build and CPU can run, path_for(isa) first (the tests run
// each; the benchmark measures each). Empty never: at least path_for(isa).
std::span<const Path* const> variants_for(Isa isa) noexcept;

// The family's registry list: every variant this build has, best first (VNNI before plain
// AVX-512, SDOT before widening NEON), scalar last. path_for(isa) is the first one this CPU runs
// whose level is at most isa's; variants_for(isa) the runnable ones of that variant's level.
std::span<const Path> variants() noexcept;

// An 8-bit operand: row-major with leading dimension `ld` (elements), uint8 or int8.
struct Operand {
  const std::uint8_t* data = nullptr;  // the bytes; int8 values are read as their two's complement
  bool is_signed = false;
  std::size_t ld = 0;
};

// B packed for one path (`nr` of that path) with its column sums; made once per constant weight.
struct PackedB {
  std::size_t k = 0, n = 0, nr = 0, pairs = 0;
  bool is_signed = false;
  std::vector<std::int8_t> panels;      // ceil(n / nr) panels of pairs * nr * 2
  std::vector<std::int32_t> col_sums;   // colSum[n] of B' (exact: |sum| <= K * 128)
};

// Packs B [k x n] for `isa`'s path. Throws std::length_error when k > kMaxK.
PackedB pack_b(const Operand& b, std::size_t k, std::size_t n, Isa isa);

// Packs a B [k x n] that is not laid out in memory (the windows of a convolution: int8.md
// "Convolution", im2col fused into the packing): `value(kk, col)` returns B'[kk, col], the element
// already in the shifted domain (int8 as it is, uint8 minus 128; -128..127). `is_signed` records
// B's own type for the zero-point correction. The one place besides pack_b that knows the panel
// layout; pack_b is this with the operand's bytes. Throws std::length_error when k > kMaxK.
template <class Value>
PackedB pack_b_with(std::size_t k, std::size_t n, bool is_signed, Isa isa, Value&& value);

// pack_b_with and pack_b into an existing PackedB, reusing its storage: no allocation once its
// vectors have held a B at least this large (the per-call windows of a convolution, packed again
// on every run into the same storage). The result is the one pack_b_with / pack_b make.
template <class Value>
void pack_b_with_into(PackedB& packed, std::size_t k, std::size_t n, bool is_signed, Isa isa, Value&& value);
void pack_b_into(PackedB& packed, const Operand& b, std::size_t k, std::size_t n, Isa isa);

// C [m x n] (row-major, leading dimension ldc) = (A - za)(B - zb). `za` holds one zero point or
// m (one per row), `zb` one or n (one per column), in the operands' own domains (uint8 or int8
// values). `b` must have been packed for `isa`'s path (std::invalid_argument otherwise).
void gemm(std::size_t m, const Operand& a, std::span<const std::int32_t> za, const PackedB& b,
          std::span<const std::int32_t> zb, std::int32_t* c, std::size_t ldc, ThreadPool* pool, Isa isa);

// gemm on one given micro kernel (one of variants_for(path.isa)); `b` packed for path.isa.
void gemm_on(const Path& path, std::size_t m, const Operand& a, std::span<const std::int32_t> za, const PackedB& b,
             std::span<const std::int32_t> zb, std::int32_t* c, std::size_t ldc, ThreadPool* pool);

template <class Value>
PackedB pack_b_with(std::size_t k, std::size_t n, bool is_signed, Isa isa, Value&& value) {
  PackedB packed;
  pack_b_with_into(packed, k, n, is_signed, isa, std::forward<Value>(value));
  return packed;
}

template <class Value>
void pack_b_with_into(PackedB& packed, std::size_t k, std::size_t n, bool is_signed, Isa isa, Value&& value) {
  if (k > kMaxK) throw std::length_error("int8 product: K above the int32 accumulation bound");
  const Path& path = path_for(isa);
  packed.k = k;
  packed.n = n;
  packed.nr = path.nr;
  packed.pairs = (k + 1) / 2;
  packed.is_signed = is_signed;
  const std::size_t panels = (n + path.nr - 1) / path.nr;
  packed.panels.assign(panels * packed.pairs * path.nr * 2, 0);
  packed.col_sums.assign(n, 0);
  for (std::size_t panel = 0; panel < panels; ++panel) {
    std::int8_t* out = packed.panels.data() + panel * packed.pairs * path.nr * 2;
    for (std::size_t c = 0; c < path.nr; ++c) {
      const std::size_t col = panel * path.nr + c;
      if (col >= n) break;  // padding columns stay zero
      std::int32_t sum = 0;
      for (std::size_t kk = 0; kk < k; ++kk) {
        const std::int32_t v = value(kk, col);
        out[(kk / 2) * path.nr * 2 + c * 2 + kk % 2] = static_cast<std::int8_t>(v);
        sum += v;  // |sum| <= kMaxK * 128 < 2^31
      }
      packed.col_sums[col] = sum;
    }
  }
}

// Per-path micro kernels (int8_micro_<path>.cpp).
void micro_scalar_6x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_avx2_6x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_avx512_12x32(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_avx512_vnni_12x32(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_sse_3x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_neon_4x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_neon_sdot_4x16(std::size_t pairs, const std::int8_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
void micro_wasm_4x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile);
// CPU features beyond the Isa level (int8_cpu.cpp): AVX512_VNNI (CPUID leaf 7 ECX bit 11) and the
// Arm dot product (HWCAP_ASIMDDP).
bool cpu_has_avx512_vnni() noexcept;
bool cpu_has_arm_dotprod() noexcept;

}  // namespace onemodel::opt::int8
