// The integer product driver (int8_gemm.hpp): B packing with column sums, A packed per block of
// kMc rows inside the chunk that uses it, the micro kernel per mr x nr tile, and the zero-point
// correction, written once for every path so that it is the same arithmetic everywhere.
#include "optimized/kernels/int8gemm/int8_gemm.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt::int8 {
namespace {

// gemm_on's per-call buffers, one set per thread (see gemm_on).
struct Workspace {
  std::vector<std::int16_t> packed;
  std::vector<std::int32_t> row_sums;
  std::vector<std::int32_t> tiles;
};
thread_local Workspace t_workspace;
thread_local bool t_workspace_busy = false;

// Marks this thread's workspace in use for one call.
class WorkspaceClaim {
 public:
  explicit WorkspaceClaim(bool claim) noexcept : claimed_(claim) {
    if (claimed_) t_workspace_busy = true;
  }
  ~WorkspaceClaim() {
    if (claimed_) t_workspace_busy = false;
  }
  WorkspaceClaim(const WorkspaceClaim&) = delete;
  WorkspaceClaim& operator=(const WorkspaceClaim&) = delete;

 private:
  bool claimed_;
};

// n zeros at the front of v, which grows only when it holds fewer.
template <class T>
void fill_zero(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), T{0});
}

// A value of the operand in the shifted domain: int8 as it is, uint8 minus 128 (int8.md).
inline std::int32_t shifted(const Operand& x, std::size_t row, std::size_t col) {
  const std::uint8_t byte = x.data[row * x.ld + col];
  return x.is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : static_cast<std::int32_t>(byte) - 128;
}

inline std::int32_t shifted_zero(std::int32_t z, bool is_signed) { return is_signed ? z : z - 128; }

constexpr Path kScalar{Isa::Scalar, 6, 16, micro_scalar_6x16, "i8_gemm_6x16__scalar"};
#if defined(__x86_64__)
// pmaddwd (SSE4.1), vpmaddwd (AVX2, AVX-512), vpdpwssd (AVX512-VNNI).
constexpr Path kSse{Isa::Sse, 3, 16, micro_sse_3x16, "i8_gemm_3x16__sse41"};
constexpr Path kAvx2{Isa::Avx2, 6, 16, micro_avx2_6x16, "i8_gemm_6x16__avx2"};
constexpr Path kAvx512{Isa::Avx512, 12, 32, micro_avx512_12x32, "i8_gemm_12x32__avx512"};
constexpr Path kAvx512Vnni{Isa::Avx512, 12, 32, micro_avx512_vnni_12x32, "i8_gemm_12x32__avx512_vnni", nullptr,
                           cpu_has_avx512_vnni};
#elif defined(__aarch64__)
// smlal (widening multiply-accumulate), sdot (the dot product extension).
constexpr Path kNeon{Isa::Neon, 4, 16, micro_neon_4x16, "i8_gemm_4x16__neon"};
constexpr Path kNeonSdot{Isa::Neon, 4, 16, nullptr, "i8_gemm_4x16__neon_sdot", micro_neon_sdot_4x16,
                         cpu_has_arm_dotprod};
#elif defined(__wasm_simd128__)
// i32x4.dot_i16x8_s.
constexpr Path kWasm{Isa::Wasm, 4, 16, micro_wasm_4x16, "i8_gemm_4x16__wasm_simd128"};
#endif

// The list: best first, scalar last (docs/design.md, "Kernel registry").
constexpr Path kVariants[] = {
#if defined(__x86_64__)
    kAvx512Vnni, kAvx512, kAvx2, kSse,
#elif defined(__aarch64__)
    kNeonSdot, kNeon,
#elif defined(__wasm_simd128__)
    kWasm,
#endif
    kScalar};

// The variants of one Isa level, best first (path_for is the first).
struct Variants {
  std::array<const Path*, 2> items{};
  std::size_t count = 0;
};

// The runnable variants of the level that the registry chooses for `isa` (kernel_registry.hpp).
Variants make_variants(Isa isa) noexcept {
  const std::span<const Path> list(kVariants);
  const Path& chosen = list[first_allowed(list, isa)];
  Variants v;
  for (const Path& p : list) {
    if (p.isa == chosen.isa && variant_runs_here(p) && v.count < v.items.size()) v.items[v.count++] = &p;
  }
  return v;
}

const Variants& level_variants(Isa isa) noexcept {
  static const std::array<Variants, kIsaCount> all = [] {
    std::array<Variants, kIsaCount> out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = make_variants(static_cast<Isa>(i));
    return out;
  }();
  const auto index = static_cast<std::size_t>(isa);
  return all[index < all.size() ? index : 0];
}

// Roughly the work of one pair of k of one tile (the pool's estimate only decides how many
// helpers are woken; it never changes a result).
constexpr double kNanosecondsPerPairTile = 2.0;

}  // namespace

const Path& path_for(Isa isa) noexcept { return *level_variants(isa).items[0]; }

std::span<const Path> variants() noexcept { return kVariants; }

std::span<const Path* const> variants_for(Isa isa) noexcept {
  const Variants& v = level_variants(isa);
  return {v.items.data(), v.count};
}

PackedB pack_b(const Operand& b, std::size_t k, std::size_t n, Isa isa) {
  PackedB packed;
  pack_b_into(packed, b, k, n, isa);
  return packed;
}

void pack_b_into(PackedB& packed, const Operand& b, std::size_t k, std::size_t n, Isa isa) {
  pack_b_with_into(packed, k, n, b.is_signed, isa, [&](std::size_t kk, std::size_t col) { return shifted(b, kk, col); });
}

void gemm(std::size_t m, const Operand& a, std::span<const std::int32_t> za, const PackedB& b,
          std::span<const std::int32_t> zb, std::int32_t* c, std::size_t ldc, ThreadPool* pool, Isa isa) {
  gemm_on(path_for(isa), m, a, za, b, zb, c, ldc, pool);
}

void gemm_on(const Path& path, std::size_t m, const Operand& a, std::span<const std::int32_t> za, const PackedB& b,
             std::span<const std::int32_t> zb, std::int32_t* c, std::size_t ldc, ThreadPool* pool) {
  if (b.nr != path.nr) throw std::invalid_argument("int8 product: B was packed for another path");
  if ((za.size() != 1 && za.size() != m) || (zb.size() != 1 && zb.size() != b.n)) {
    throw std::invalid_argument("int8 product: a zero point per row of A or per column of B, or one");
  }
  const std::size_t n = b.n, k = b.k, pairs = b.pairs, mr = path.mr, nr = path.nr;
  // A PackedB is plain data: its sizes must be the ones pack_b_with makes before a panel is read.
  if (k > kMaxK || pairs != (k + 1) / 2 || b.col_sums.size() != n ||
      b.panels.size() != (n + nr - 1) / nr * pairs * nr * 2) {
    throw std::invalid_argument("int8 product: B's sizes do not match its k and n");
  }
  if (ldc < n) throw std::invalid_argument("int8 product: ldc below n");
  if (m == 0 || n == 0) return;
  const std::size_t blocks = (m + kMc - 1) / kMc;
  // Every chunk's buffers are made before the pool runs (a chunk must not throw, thread_pool.hpp):
  // A' of each block in panels of mr rows, k in pairs, int16 (rows past m and the odd k zero), or
  // for a quad kernel k in quads, int8 (the same number of bytes per two pairs, half per pair), its
  // row sums, and one mr x nr tile per block.
  const bool quads = path.quad_micro != nullptr;
  const std::size_t panels_per_block = kMc / mr;
  const std::size_t panel_elems = quads ? (pairs + 1) / 2 * mr * 2 : pairs * mr * 2;  // int16 units
  // They live in this thread's workspace, grown when a call needs more and zeroed per call as fresh
  // vectors would be, so a warm run allocates nothing (graph-runtime.md section 4); a call made
  // while the workspace is in use on this thread (none is known) takes vectors of its own.
  Workspace own;
  const bool reuse = !t_workspace_busy;
  Workspace& ws = reuse ? t_workspace : own;
  const WorkspaceClaim claim(reuse);
  fill_zero(ws.packed, blocks * panels_per_block * panel_elems);
  fill_zero(ws.row_sums, blocks * kMc);
  fill_zero(ws.tiles, blocks * mr * nr);
  std::int16_t* const packed_all = ws.packed.data();
  std::int32_t* const row_sums_all = ws.row_sums.data();
  std::int32_t* const tiles = ws.tiles.data();
  const auto block = [&](std::size_t index) {
    const std::size_t row0 = index * kMc;
    const std::size_t rows = std::min(kMc, m - row0);
    const std::size_t a_panels = (rows + mr - 1) / mr;
    std::int16_t* packed_a = packed_all + index * panels_per_block * panel_elems;
    std::int32_t* row_sums = row_sums_all + index * kMc;
    // A byte in the shifted domain is the byte with its top bit flipped for uint8 (b - 128) and
    // as it is for int8, read as int8 (int8.md: A' = A - 128 for uint8 A).
    const std::uint8_t flip = a.is_signed ? 0x00 : 0x80;
    for (std::size_t r = 0; r < rows; ++r) {
      std::int16_t* panel = packed_a + (r / mr) * panel_elems;
      const std::uint8_t* src = a.data + (row0 + r) * a.ld;
      std::int32_t sum = 0;
      if (quads) {
        auto* panel8 = reinterpret_cast<std::int8_t*>(panel);  // a character type: may alias the int16 storage
        for (std::size_t kk = 0; kk < k; ++kk) {
          const auto v = static_cast<std::int8_t>(src[kk] ^ flip);
          panel8[(kk / 4) * mr * 4 + (r % mr) * 4 + kk % 4] = v;
          sum += v;
        }
      } else {
        // Pair by pair down the panel: a row's pairs lie mr * 2 values apart.
        std::int16_t* dst = panel + (r % mr) * 2;
        const std::size_t step = mr * 2;
        std::size_t kk = 0;
        for (; kk + 1 < k; kk += 2, dst += step) {
          const auto v0 = static_cast<std::int8_t>(src[kk] ^ flip);
          const auto v1 = static_cast<std::int8_t>(src[kk + 1] ^ flip);
          dst[0] = v0;
          dst[1] = v1;
          sum += v0 + v1;
        }
        if (kk < k) {
          const auto v0 = static_cast<std::int8_t>(src[kk] ^ flip);
          dst[0] = v0;
          sum += v0;
        }
      }
      row_sums[r] = sum;
    }
    std::int32_t* tile = tiles + index * mr * nr;
    // S of every tile over the whole K, written to C (these rows are this chunk's alone); the
    // correction follows in one pass per row. int8.md's K blocking (Kc = 512, S accumulated in C
    // block by block, which changes no bit) was measured and did not help on this machine
    // (docs/kernel-performance.md, "Integer product"), so the panels are walked once over K.
    for (std::size_t ap = 0; ap < a_panels; ++ap) {
      for (std::size_t bp = 0; bp * nr < n; ++bp) {
        const std::int8_t* b_panel = b.panels.data() + bp * pairs * nr * 2;
        if (quads) {
          path.quad_micro(pairs, reinterpret_cast<const std::int8_t*>(packed_a + ap * panel_elems), b_panel, tile);
        } else {
          path.micro(pairs, packed_a + ap * panel_elems, b_panel, tile);
        }
        const std::size_t cols = std::min(nr, n - bp * nr);
        for (std::size_t r = 0; r < mr && ap * mr + r < rows; ++r) {
          std::int32_t* out = c + (row0 + ap * mr + r) * ldc + bp * nr;
          for (std::size_t j = 0; j < cols; ++j) out[j] = tile[r * nr + j];
        }
      }
    }
    // int8.md: C = S - zA' colSum - zB' rowSum + K zA' zB', modulo 2^32, written once for every
    // path; the loops over columns are plain uint32 arithmetic, which GCC vectorizes (16-byte
    // vectors at the x86-64 baseline, -fopt-info-vec) with the same bits as the scalar form.
    const auto k32 = static_cast<std::uint32_t>(k);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t row = row0 + r;
      const auto zar = static_cast<std::uint32_t>(shifted_zero(za[za.size() == 1 ? 0 : row], a.is_signed));
      const auto rsum = static_cast<std::uint32_t>(row_sums[r]);
      std::int32_t* out = c + row * ldc;
      const std::int32_t* col_sums = b.col_sums.data();
      if (zb.size() == 1) {
        const auto zbc = static_cast<std::uint32_t>(shifted_zero(zb[0], b.is_signed));
        const std::uint32_t row_term = k32 * zar * zbc - zbc * rsum;
        for (std::size_t col = 0; col < n; ++col) {
          out[col] = static_cast<std::int32_t>(static_cast<std::uint32_t>(out[col]) -
                                               zar * static_cast<std::uint32_t>(col_sums[col]) + row_term);
        }
      } else {
        for (std::size_t col = 0; col < n; ++col) {
          const auto zbc = static_cast<std::uint32_t>(shifted_zero(zb[col], b.is_signed));
          out[col] = static_cast<std::int32_t>(static_cast<std::uint32_t>(out[col]) -
                                               zar * static_cast<std::uint32_t>(col_sums[col]) - zbc * rsum + k32 * zar * zbc);
        }
      }
    }
  };
  const double estimate = kNanosecondsPerPairTile * static_cast<double>(pairs) *
                          static_cast<double>(((m + mr - 1) / mr) * ((n + nr - 1) / nr));
  if (pool == nullptr || blocks == 1) {
    for (std::size_t i = 0; i < blocks; ++i) block(i);
    return;
  }
  pool->parallel_for(blocks, estimate, [&](std::size_t i) { block(i); });
}

}  // namespace onemodel::opt::int8
