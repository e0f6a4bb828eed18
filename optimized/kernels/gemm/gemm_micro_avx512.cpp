// The AVX-512 12 x 32 microkernels (kernels-gemm.md, table under "Structure": 24 of 32 zmm hold
// the accumulators, tiles MC x NC = 96 x 128). Each step of k loads the 32-wide packed B row as
// 2 vectors, then for each of the 12 rows broadcasts that row's packed A value and updates the
// row's 2 accumulators: fast mode with _mm512_fmadd_ps (kernels-gemm.md, "Fast mode"), exact
// mode with a rounded multiply and then a rounded add (exact-mode.md rule 1). One accumulator per
// output, p increasing: the same per-output order as every other path, so exact results are the
// scalar and AVX2 bits (exact-mode.md rules 2 and 5). Compiled with the AVX-512 flags of
// cmake/kernel_sources.cmake; called only after the CPU check of optimized/frame/isa.cpp.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "optimized/kernels/conv/fused_activation_avx512.hpp"
#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kStripRows = 12;  // MR: the packed A strip holds 12 rows per step of k

using avx512::canonical_nan;
using avx512::step;

// The accumulators live in a fully unrolled array; GCC and clang keep each element in its own
// zmm register (checked in the generated code: no spills in the k loop). kRows < 12 is the short
// kernel of a ragged last A strip (m = 64 keeps 4 rows of its sixth strip): the same sequence per
// output over the first kRows rows of the 12-row strip, so those rows get the 12-row kernel's bits
// without computing (and copying out of scratch) the padding rows.
// kStreamed: A was packed before the call and comes from memory, used by one or two B strips
// before the driver moves on (gemm.cpp run_rows goes B strip by B strip); each step then asks
// for the A values kStreamAhead steps on (3 KB), which the hardware prefetchers had left to the
// loads. Session 30, Zen 4, one thread, fast: M = 512, K = 4608 (a 512-filter 3x3 layer) over
// N = 49 columns 2331 -> 2251 us; N = 784 at K = 1152 2123 -> 2084. Which products take it, and
// the model figures that chose those bounds: gemm.cpp, kStreamedMinK.
constexpr std::size_t kStreamAhead = 64;

template <bool kFused, int kRows, bool kStreamed = false>
[[gnu::always_inline]] inline void accumulate_rows_x32(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, const float* c,
                                std::ptrdiff_t ldc, std::uint32_t flags, __m512* acc0, __m512* acc1) noexcept {
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      acc0[r] = _mm512_loadu_ps(c + r * ldc);
      acc1[r] = _mm512_loadu_ps(c + r * ldc + 16);
    }
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    // A prefetch never faults, so asking past the packed A's end is harmless; the address is formed
    // as an integer, since a pointer past the array's end would not be valid C++.
    if constexpr (kStreamed) {
      const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(a) + kStreamAhead * kStripRows * sizeof(float);
      _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
    }
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      const __m512 av = _mm512_set1_ps(a[r]);
      acc0[r] = step<kFused>(acc0[r], av, b0);
      acc1[r] = step<kFused>(acc1[r], av, b1);
    }
    a += kStripRows;
    b += ldb;
  }
}

template <bool kFused, int kRows, bool kStreamed = false>
inline void kernel_rows_x32(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                            std::ptrdiff_t ldc, std::uint32_t flags) noexcept {
  __m512 acc0[kRows];
  __m512 acc1[kRows];
  accumulate_rows_x32<kFused, kRows, kStreamed>(kc, a, b, ldb, c, ldc, flags, acc0, acc1);
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    __m512 v0 = acc0[r];
    __m512 v1 = acc1[r];
    if (canonical) {
      v0 = canonical_nan(v0);
      v1 = canonical_nan(v1);
    }
    _mm512_storeu_ps(c + r * ldc, v0);
    _mm512_storeu_ps(c + r * ldc + 16, v1);
  }
}

}  // namespace

void f32_gemm_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                std::uint32_t flags) {
  kernel_rows_x32<true, kStripRows>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                  std::uint32_t flags) {
  kernel_rows_x32<false, kStripRows>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_12x32__avx512_fma_streamed(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::uint32_t flags) {
  kernel_rows_x32<true, kStripRows, true>(kc, a, b, ldb, c, ldc, flags);
}

namespace {

// The store kernel's steps on the finished accumulators of row r: the rounded bias addition, the
// rounded residual addition, then the activation (which stores NaN canonical) or, after a residual
// alone, the canonical NaN: exactly the one-pass epilogue's steps (conv_bias_rows_avx512.cpp), or
// the bias pass and the Add's element-wise pass: the bits `apply` gives the stored values.
template <bool kResidual, bool kActivate, ew::UnaryOp kOp>
[[gnu::always_inline]] inline void store_rows(const __m512* acc0, const __m512* acc1, float* c, std::ptrdiff_t ldc,
                                              const float* bias, const float* residual, std::ptrdiff_t residual_ld,
                                              const fused_activation::Args& act) noexcept {
#pragma GCC unroll 12
  for (int r = 0; r < kStripRows; ++r) {
    const __m512 bv = _mm512_set1_ps(bias[r]);
    __m512 v0 = _mm512_add_ps(acc0[r], bv);
    __m512 v1 = _mm512_add_ps(acc1[r], bv);
    if constexpr (kResidual) {
      v0 = _mm512_add_ps(v0, _mm512_loadu_ps(residual + r * residual_ld));
      v1 = _mm512_add_ps(v1, _mm512_loadu_ps(residual + r * residual_ld + 16));
    }
    if constexpr (kActivate) {
      v0 = fused_activation::apply_op<kOp>(act, v0);
      v1 = fused_activation::apply_op<kOp>(act, v1);
    } else if constexpr (kResidual) {
      v0 = canonical_nan(v0);
      v1 = canonical_nan(v1);
    }
    _mm512_storeu_ps(c + r * ldc, v0);
    _mm512_storeu_ps(c + r * ldc + 16, v1);
  }
}

constexpr std::size_t kStripCols = 32;  // NR: a block's columns

// Fast mode only (the driver never passes kGemmCanonicalNan here): the 12 x 32 fused kernel's
// accumulation, then store_rows instead of the plain stores.
template <bool kStreamed>
void fused_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                 std::uint32_t flags, const GemmStoreOps& ops, std::size_t row, std::size_t col) {
  const std::ptrdiff_t ld = static_cast<std::ptrdiff_t>(ops.residual_ld);
  const float* residual = ops.residual != nullptr ? ops.residual + row * ops.residual_ld + col : nullptr;
  // The block's residual rows and its rows of C (two lines each), asked for while the products
  // run: the tile's prefetch (GemmEpilogue::prefetch) asks for a whole tile's residual at once, more
  // lines than the first-level cache keeps while A and B stream through it, and a store to a line
  // not in the cache waits for it. Zen 4, one thread, 128 -> 256 1x1 at 56 x 56 with a residual
  // and Relu: 2.57-2.99 -> 2.15-2.27 ms; with Relu alone 2.09-2.13 -> 2.03-2.09 (session 32).
  // With fewer than kOwnBlockPrefetchSteps steps (a 1x1 layer from 16 to 32 channels) a block's
  // products are over before its lines would arrive, and every store waits on one: the block
  // then asks for the lines of the block prefetch_blocks_ahead(kc) on in the same rows, the next
  // ones the driver's rows-first order stores (gemm.cpp run_rows_store; past the tile's last
  // block, the next tile's first ones). Session 42, Intel Xeon (model 167), one thread,
  // MobileNetV3 at batch 8, per node (onemodel profile, minimum of three alternated medians, us):
  // 16 -> 64 1x1 at 112 x 112 4387 -> 2878, 24 -> 72 at 56 x 56 1239 -> 811, 16 -> 16 at 112 x
  // 112 with the residual 1523 -> 1333 (2, 4 and 8 blocks ahead within a few percent of each
  // other). The addresses are formed as integers: past the last block they may lie beyond C (a
  // request never faults, but such a pointer would not be valid C++). A hint, changing no value.
  if (kc > 0) {
    const std::uintptr_t ahead = sizeof(float) * kStripCols * prefetch_blocks_ahead(kc);
    const auto at = [ahead](const float* row, std::size_t lane) {
      return reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(row) + ahead + lane * sizeof(float));
    };
#pragma GCC unroll 12
    for (int r = 0; r < kStripRows; ++r) {
      if (residual != nullptr) {
        _mm_prefetch(at(residual + r * ld, 0), _MM_HINT_T0);
        _mm_prefetch(at(residual + r * ld, 16), _MM_HINT_T0);
      }
      __builtin_prefetch(at(c + r * ldc, 0), 1, 3);
      __builtin_prefetch(at(c + r * ldc, 16), 1, 3);
    }
  }
  const fused_activation::Args act{ops.activation, _mm512_set1_ps(ops.alpha), _mm512_set1_ps(ops.beta),
                                   ops.fast};
  const float* bias = ops.bias + row;
  // The epilogue is chosen before the products, and each choice runs the products and its stores
  // in one function: with the choice made between them (the accumulators handed to a lambda), the
  // 24 accumulators went through the stack after the k loop and back. With the cheaper Relu
  // (fused_activation_avx512.hpp) a 16 -> 64 1x1 layer with Relu at 112 x 112, 16 products per
  // output, took 338-339 us before either change, 319-321 with the Relu alone and 277-278 with
  // both (AMD EPYC Zen 4, one thread, session 33).
  const auto run = [&](auto with_residual, auto activate, auto op) {
    __m512 acc0[kStripRows];
    __m512 acc1[kStripRows];
    accumulate_rows_x32<true, kStripRows, kStreamed>(kc, a, b, ldb, c, ldc, flags, acc0, acc1);
    store_rows<decltype(with_residual)::value, decltype(activate)::value, decltype(op)::value>(
        acc0, acc1, c, ldc, bias, residual, ld, act);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (!ops.activate) {
    const auto unused = std::integral_constant<ew::UnaryOp, ew::UnaryOp::Relu>{};  // no activation is applied
    return residual != nullptr ? run(Yes{}, No{}, unused) : run(No{}, No{}, unused);
  }
  fused_activation::with_op(act.op, [&](auto op) {
    if (residual != nullptr) {
      run(Yes{}, Yes{}, op);
    } else {
      run(No{}, Yes{}, op);
    }
  });
}

}  // namespace

void f32_gemm_12x32__avx512_fma_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                      std::ptrdiff_t ldc, std::uint32_t flags, const GemmStoreOps& ops,
                                      std::size_t row, std::size_t col) {
  fused_store<false>(kc, a, b, ldb, c, ldc, flags, ops, row, col);
}

void f32_gemm_12x32__avx512_fma_store_streamed(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                               float* c, std::ptrdiff_t ldc, std::uint32_t flags,
                                               const GemmStoreOps& ops, std::size_t row, std::size_t col) {
  fused_store<true>(kc, a, b, ldb, c, ldc, flags, ops, row, col);
}

namespace {

template <bool kFused>
void short_rows(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                std::size_t rows, std::uint32_t flags) noexcept {
  switch (rows) {
    case 1: return kernel_rows_x32<kFused, 1>(kc, a, b, ldb, c, ldc, flags);
    case 2: return kernel_rows_x32<kFused, 2>(kc, a, b, ldb, c, ldc, flags);
    case 3: return kernel_rows_x32<kFused, 3>(kc, a, b, ldb, c, ldc, flags);
    case 4: return kernel_rows_x32<kFused, 4>(kc, a, b, ldb, c, ldc, flags);
    case 5: return kernel_rows_x32<kFused, 5>(kc, a, b, ldb, c, ldc, flags);
    case 6: return kernel_rows_x32<kFused, 6>(kc, a, b, ldb, c, ldc, flags);
    case 7: return kernel_rows_x32<kFused, 7>(kc, a, b, ldb, c, ldc, flags);
    case 8: return kernel_rows_x32<kFused, 8>(kc, a, b, ldb, c, ldc, flags);
    case 9: return kernel_rows_x32<kFused, 9>(kc, a, b, ldb, c, ldc, flags);
    case 10: return kernel_rows_x32<kFused, 10>(kc, a, b, ldb, c, ldc, flags);
    case 11: return kernel_rows_x32<kFused, 11>(kc, a, b, ldb, c, ldc, flags);
    default: return kernel_rows_x32<kFused, kStripRows>(kc, a, b, ldb, c, ldc, flags);
  }
}

}  // namespace

void f32_gemm_short_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                      std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  short_rows<true>(kc, a, b, ldb, c, ldc, rows, flags);
}

void f32_gemm_short_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                        std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  short_rows<false>(kc, a, b, ldb, c, ldc, rows, flags);
}

namespace {

// Half of a 12-row A strip (rows [0, 6) of `a`, which steps 12 floats per k) against two B strips
// (64 columns, b0 then b1): 24 accumulators, 4 B vectors per step, 6 broadcasts. On Zen 4 a
// broadcast takes a vector pipe that exact mode's separate multiply and add also need, so the 12
// broadcasts per 24 products of the 12 x 32 kernel cost about a third of its time; 6 per 24 cost
// half as much. One accumulator per output, p increasing, rounded product then rounded sum: the
// 12 x 32 kernel's sequence, so its bits (exact-mode.md rules 1 to 3).
constexpr int kHalfRows = 6;

void half_rows_x64_exact(std::size_t kc, const float* a, const float* b0, std::ptrdiff_t ldb0, const float* b1,
                         std::ptrdiff_t ldb1, float* c, std::ptrdiff_t ldc, std::uint32_t flags) noexcept {
  __m512 acc[kHalfRows][4];
  if ((flags & kGemmAccumulate) != 0) {
#pragma GCC unroll 6
    for (int r = 0; r < kHalfRows; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_loadu_ps(c + r * ldc + 16 * v);
    }
  } else {
#pragma GCC unroll 6
    for (int r = 0; r < kHalfRows; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_ps();
    }
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m512 bv[4] = {_mm512_loadu_ps(b0), _mm512_loadu_ps(b0 + 16), _mm512_loadu_ps(b1),
                          _mm512_loadu_ps(b1 + 16)};
#pragma GCC unroll 6
    for (int r = 0; r < kHalfRows; ++r) {
      const __m512 av = _mm512_set1_ps(a[r]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[r][v] = step<false>(acc[r][v], av, bv[v]);
    }
    a += kStripRows;
    b0 += ldb0;
    b1 += ldb1;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 6
  for (int r = 0; r < kHalfRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      const __m512 out = canonical ? canonical_nan(acc[r][v]) : acc[r][v];
      // Columns 0-31 from b0 go to c[0, 32), columns 32-63 from b1 to c[32, 64).
      _mm512_storeu_ps(c + r * ldc + 16 * v, out);
    }
  }
}

}  // namespace

void f32_gemm_pair_12x64__avx512_exact(std::size_t kc, const float* a, const float* b0, std::ptrdiff_t ldb0,
                                       const float* b1, std::ptrdiff_t ldb1, float* c, std::ptrdiff_t ldc,
                                       std::uint32_t flags) {
  half_rows_x64_exact(kc, a, b0, ldb0, b1, ldb1, c, ldc, flags);
  half_rows_x64_exact(kc, a + kHalfRows, b0, ldb0, b1, ldb1, c + kHalfRows * ldc, ldc, flags);
}

}  // namespace onemodel::opt::gemm
