// The float32 matrix product (kernels-gemm.md; exact-mode.md, "Matrix product"):
// C[m x n] = A[m x k] * B[k x n] with free row and column strides for A and B (so transposed
// operands need no copy) and row stride ldc for C.
//
// Every output is one accumulator over p = 0..k-1 in increasing order, starting from +0: exact
// mode rounds the product and then the sum; fast mode uses a fused multiply-add where the path
// has one. Exact mode stores every NaN as 0x7FC00000. Tiles, k-blocks, lanes and threads never
// change a result (kernels-gemm.md, "Fixed chunks and thread independence").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt {

namespace gemm {
// kernels-gemm.md "Fixed chunks and thread independence": about 40 multiply-adds per nanosecond of
// a product's tiles on one thread, the work estimate a kernel hands the pool (ThreadPool::
// parallel_for) for its products; an estimate only, never part of a result.
inline constexpr double kMultiplyAddsPerNs = 40.0;
}  // namespace gemm

// A read-only matrix: element (r, c) at data[r * row_stride + c * col_stride].
struct MatrixView {
  const float* data = nullptr;
  std::ptrdiff_t row_stride = 0;
  std::ptrdiff_t col_stride = 1;
};

// Called once per finished block of C (after its whole k), on the thread that computed it:
// rows [row, row + rows), columns [col, col + cols); c points at element (row, col).
// Used for bias, activation and the like; results then still do not depend on threads.
// It must not call the matrix product itself: the thread's packing buffers are in use.
// `apply`'s whole work in a form a product's own stores can do (GemmEpilogue::store): for element
// (r, j) of C, v + bias[r] (one rounded addition); then, when `residual` is given,
// + residual[r * residual_ld + j] (one rounded addition, a residual Add's); then, when `activate`,
// `activation`: Relu, Clip (alpha, beta the bounds), LeakyRelu (alpha the slope), HardSwish or SiLU
// (the fast sigmoid's when `fast`), the ones activation_fuses_in_store names, as
// fused_activation_avx512.hpp computes them; otherwise, after a residual, NaN made canonical (as the
// Add's element-wise kernel stores it).
// Fast mode on the AVX-512 path applies it in the last k-block's stores of its full 12 x 32 blocks
// (gemm_micro.hpp, the store kernel) and runs `apply` on the rest, the same arithmetic on the same
// values, so the bits are `apply`'s; everywhere else `apply` runs alone.
struct GemmStoreOps {
  const float* bias = nullptr;  // one value per row of C; never null
  const float* residual = nullptr;
  std::size_t residual_ld = 0;
  bool activate = false;
  ew::UnaryOp activation = ew::UnaryOp::Relu;
  float alpha = 0.0f, beta = 0.0f;
  bool fast = false;
};

struct GemmEpilogue {
  void (*apply)(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col,
                std::size_t rows, std::size_t cols) = nullptr;
  const void* state = nullptr;
  // Optional: called on a tile's thread before the tile's products, with the rows and columns
  // `apply` will get, so that the epilogue can ask for memory it will read (a residual written
  // layers earlier, since evicted by streaming weights) while the products run. Only a hint to the
  // caches: it changes no value.
  void (*prefetch)(const void* state, std::size_t row, std::size_t col, std::size_t rows, std::size_t cols) = nullptr;
  // Optional: exactly what `apply` does, for the store kernels (GemmStoreOps); null otherwise.
  const GemmStoreOps* store = nullptr;
};

// B packed once for all its k and n in the layout of one path (constant weights): products with
// it give bit-identical results to gemm_f32 with the unpacked B on the same path and mode.
class PackedB {
 public:
  PackedB() = default;
  Isa isa() const noexcept { return isa_; }
  std::size_t k() const noexcept { return k_; }
  std::size_t n() const noexcept { return n_; }
  const float* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  friend PackedB pack_b_f32(Isa isa, std::size_t k, std::size_t n, MatrixView b);
  struct FreeAligned {
    void operator()(float* p) const noexcept;
  };
  Isa isa_ = Isa::Scalar;
  std::size_t k_ = 0;
  std::size_t n_ = 0;
  std::size_t size_ = 0;
  std::unique_ptr<float, FreeAligned> data_;
};

// A packed once for all its m and k in the layout of one path (constant weights, e.g. a
// convolution's filters): per k-block of KC, all rows as strips of MR rows with element (p, r)
// at p * MR + r and rows past m padded with +0 (gemm_pack.hpp) -- the strips the tiles otherwise
// pack per call (kernels-gemm.md, "Structure" step 2). Products with it give bit-identical
// results to gemm_f32 with the unpacked A on the same path and mode: packing only moves values.
class PackedA {
 public:
  PackedA() = default;
  Isa isa() const noexcept { return isa_; }
  std::size_t m() const noexcept { return m_; }
  std::size_t k() const noexcept { return k_; }
  const float* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  friend PackedA pack_a_f32(Isa isa, std::size_t m, std::size_t k, MatrixView a);
  struct FreeAligned {
    void operator()(float* p) const noexcept;
  };
  Isa isa_ = Isa::Scalar;
  std::size_t m_ = 0;
  std::size_t k_ = 0;
  std::size_t size_ = 0;
  std::unique_ptr<float, FreeAligned> data_;
};

// Packing space is per thread and only grows (thread_local), so after the first calls of a shape
// a call allocates nothing. It may be called from inside another parallel-for chunk (with or
// without a pool: a busy pool runs the chunks on the calling thread).
void gemm_f32(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue = nullptr);

PackedB pack_b_f32(Isa isa, std::size_t k, std::size_t n, MatrixView b);

// b.isa() must equal context.isa.
void gemm_f32_packed(const KernelContext& context, std::size_t m, MatrixView a, const PackedB& b, float* c,
                     std::ptrdiff_t ldc, const GemmEpilogue* epilogue = nullptr);

struct AStripSource;
// gemm_f32_packed with A packed block by block by `a` (a 16-bit activation widened as it is
// packed, gemm_half.hpp): the microkernels see the same floats in the same order, so the bits of
// gemm_f32_packed on an A holding those values.
void gemm_f32_packed_b_sourced_a(const KernelContext& context, std::size_t m, const AStripSource& a, const PackedB& b,
                                 float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue = nullptr);

PackedA pack_a_f32(Isa isa, std::size_t m, std::size_t k, MatrixView a);

// gemm_f32 with A given packed: B is packed per call as in gemm_f32, the tiles read their A
// blocks from `a` instead of packing them. a.isa() must equal context.isa and (a.m(), a.k()) must
// be (m, k); otherwise std::invalid_argument.
// `b_from_memory`: B was written well before the call (a 1x1 convolution's input), so its rows,
// each a strip's width of a far-apart row, are likely outside the caches; the tiles then ask for
// each in-place strip of B one strip ahead (gemm.cpp, ask_for_in_place_strip). Only a hint to the
// caches: it changes no value. Left false for a B just written (an im2col or transformed matrix),
// where the requests only crowd the first-level cache.
void gemm_f32_packed_a(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, const PackedA& a,
                       MatrixView b, float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue = nullptr,
                       bool b_from_memory = false);

// B given as a function writing strips of it, for a B that is never stored whole (the im2col
// matrix of a convolution): fill(state, p0, kc, col, valid, nr, out) writes rows [p0, p0 + kc) and
// columns [col, col + valid) of B at out[(p - p0) * nr + (j - col)], and +0 in columns [valid, nr).
// It is called from the tiles' threads, several at once, so it must only read shared state.
struct BStripSource {
  void (*fill)(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid, std::size_t nr,
               float* out) = nullptr;
  const void* state = nullptr;
  // Filling a strip costs about what reading a packed one does (a contiguous widening,
  // packed_half_b_source): gemm_f32_sourced then fills strips per tile even with several tile
  // rows, into a strip the tile reads from L1, rather than B whole into a buffer written to memory
  // and read back. Which strips hold which values does not change, so neither do the results.
  bool per_tile = false;
};

// A given as a function packing blocks of it, for an A that is never stored in binary32 (a compact
// weight, gemm_half.hpp): pack(state, row0, rows, p0, kc, mr, out) writes rows [row0, row0 + rows)
// and k [p0, p0 + kc) of A in pack_a_block's layout (strips of mr rows, element (p, r) of a strip
// at p * mr + r, strips kc * mr apart, rows past `rows` +0). Called from the tiles' threads.
struct AStripSource {
  void (*pack)(const void* state, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, std::size_t mr,
               float* out) = nullptr;
  const void* state = nullptr;
};

// gemm_f32 with either operand from a source: A packed by `a_source` instead of read from `a`
// when a_source is given, B filled by `b_source` instead of read from `b` when b_source is given
// (with one tile row, m <= MC, each tile fills each strip it uses; otherwise B is filled whole
// into the packing buffer, strip by strip, as gemm_f32 packs it). The microkernels see the same
// floats in the same order as from stored operands holding those values: gemm_f32's bits.
void gemm_f32_sourced(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k,
                      const AStripSource* a_source, MatrixView a, const BStripSource* b_source, MatrixView b, float* c,
                      std::ptrdiff_t ldc, const GemmEpilogue* epilogue = nullptr);

// gemm_f32_packed_a with B from a strip source: with one band of rows (m up to 264 rows a band,
// or m <= MC where a small n needs narrower bands for the threads) each tile fills each strip it
// uses once per k-block (nothing of B is stored beyond one strip per thread); otherwise B is
// filled whole into the packing buffer, strip by strip. The values reach the microkernel in
// the same order as from a stored B, so the results are gemm_f32_packed_a's bits.
void gemm_f32_packed_a_sourced(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k,
                               const PackedA& a, const BStripSource& b, float* c, std::ptrdiff_t ldc,
                               const GemmEpilogue* epilogue = nullptr);

}  // namespace onemodel::opt
