// The AVX2 6 x 16 microkernels (kernels-gemm.md, table under "Structure": 12 of 16 ymm hold the
// accumulators). Each step of k broadcasts the 6 values of one packed A column, loads the
// 16-wide packed B row as 2 vectors and updates the 12 accumulators: fast mode with
// _mm256_fmadd_ps (kernels-gemm.md, "Fast mode"), exact mode with a rounded multiply and then a
// rounded add (exact-mode.md rule 1). Lanes hold different outputs, never terms of one output
// (exact-mode.md rule 2). Compiled with -mavx2 -mfma; called only after the CPU check.
#include <immintrin.h>


#include <cstdint>
#include <type_traits>

#include "optimized/kernels/conv/fused_activation_avx2.hpp"
#include "optimized/kernels/elementwise/lane_math.hpp"
#include "optimized/kernels/lanes/paired_lanes.hpp"
#include "optimized/kernels/gemm/gemm_lanes_avx2.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kRows = 6;  // MR: the packed A strip holds 6 rows per step of k

using avx2::canonical_nan;
using avx2::step;

// The accumulators live in fully unrolled arrays; GCC keeps each element in its own ymm register
// (12 accumulators, 2 B vectors and a broadcast: 15 of 16).
template <bool kFused>
[[gnu::always_inline]] inline void accumulate_6x16(std::size_t kc, const float* a, const float* b,
                                                   std::ptrdiff_t ldb, const float* c, std::ptrdiff_t ldc,
                                                   std::uint32_t flags, __m256* acc0, __m256* acc1) noexcept {
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      acc0[r] = _mm256_loadu_ps(c + r * ldc);
      acc1[r] = _mm256_loadu_ps(c + r * ldc + 8);
    }
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) acc0[r] = acc1[r] = _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc0[r] = step<kFused>(acc0[r], av, b0);
      acc1[r] = step<kFused>(acc1[r], av, b1);
    }
    a += kRows;
    b += ldb;
  }
}

template <bool kFused>
inline void kernel_6x16(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                        std::uint32_t flags) noexcept {
  __m256 acc0[kRows];
  __m256 acc1[kRows];
  accumulate_6x16<kFused>(kc, a, b, ldb, c, ldc, flags, acc0, acc1);
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    __m256 v0 = acc0[r];
    __m256 v1 = acc1[r];
    if (canonical) {
      v0 = canonical_nan(v0);
      v1 = canonical_nan(v1);
    }
    _mm256_storeu_ps(c + r * ldc, v0);
    _mm256_storeu_ps(c + r * ldc + 8, v1);
  }
}

// SiLU over a stored 6 x 16 block, its rows still in L1: two vectors of a row side by side over
// the paired lanes (lanes/paired_lanes.hpp), each lane the element-wise kernel's sequence, so the bits
// apply_op gives. Out of line and flattened: inlined into the store kernel, the sequence shared
// the registers with the twelve accumulators, and the pairs, left out of line, went through
// memory (1.6x the time).
[[gnu::noinline, gnu::flatten]] void silu_block(float* c, std::ptrdiff_t ldc, bool fast) noexcept {
  using P = opt::PairedLanes<ew::Avx2Lanes>;
  using Q = opt::PairedLanes<P>;
  for (int r = 0; r < kRows; r += 2) {
    float* row = c + r * ldc;
    const Q::F v{P::load(row), P::load(row + ldc)};
    const Q::F y = fast ? ew::fast_silu<Q>(v) : ew::silu<Q>(v);
    P::store(row, y.lo);
    P::store(row + ldc, y.hi);
  }
}

// The store kernel's steps on the finished accumulators: the rounded bias addition, the rounded
// residual addition, then the activation (which stores NaN canonical) or, after a residual alone,
// the canonical NaN: the steps of the convolution's epilogue (conv_bias_epilogue.hpp), the bias
// pass then the Add's element-wise pass, so the bits `apply` gives the stored values.
template <bool kResidual, bool kActivate, ew::UnaryOp kOp>
[[gnu::always_inline]] inline void store_rows(const __m256* acc0, const __m256* acc1, float* c, std::ptrdiff_t ldc,
                                              const float* bias, const float* residual, std::ptrdiff_t residual_ld,
                                              const fused_activation_avx2::Args& act) noexcept {
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    const __m256 bv = _mm256_broadcast_ss(bias + r);
    __m256 v0 = _mm256_add_ps(acc0[r], bv);
    __m256 v1 = _mm256_add_ps(acc1[r], bv);
    if constexpr (kResidual) {
      v0 = _mm256_add_ps(v0, _mm256_loadu_ps(residual + r * residual_ld));
      v1 = _mm256_add_ps(v1, _mm256_loadu_ps(residual + r * residual_ld + 8));
    }
    if constexpr (kActivate && kOp == ew::UnaryOp::Silu) {
      // Stored as they are; silu_block below finishes the block.
    } else if constexpr (kActivate) {
      v0 = fused_activation_avx2::apply_op<kOp>(act, v0);
      v1 = fused_activation_avx2::apply_op<kOp>(act, v1);
    } else if constexpr (kResidual) {
      v0 = canonical_nan(v0);
      v1 = canonical_nan(v1);
    }
    _mm256_storeu_ps(c + r * ldc, v0);
    _mm256_storeu_ps(c + r * ldc + 8, v1);
  }
  if constexpr (kActivate && kOp == ew::UnaryOp::Silu) silu_block(c, ldc, act.fast);
}

// The output and residual lines of a block asked for while its products run, as the AVX-512 store
// kernel does (gemm_micro_avx512.cpp, fused_store, which says why and what it measured): with at
// least kOwnBlockPrefetchSteps steps the block's own lines, with fewer the lines of the block
// prefetch_blocks_ahead(kc) blocks on in the same rows (gemm_micro.hpp; the driver's rows-first
// order stores those next). The addresses are formed as integers (past the last block they may lie beyond C). Session
// 42, the AVX2 path on an Intel Xeon (model 167, ONEMODEL_ISA=avx2), one thread, per node (minimum
// of three alternated profile medians, us): MobileNetV3 at batch 8, 16 -> 64 1x1 at 112 x 112 5508
// -> 4229, 24 -> 72 at 56 x 56 1509 -> 1219; ResNet-50 at batch 1, 64 -> 256 at 56 x 56 with the
// residual 1441 -> 1376. Not yet measured on an AVX2-only CPU. A hint only; no value changes.
constexpr std::size_t kBlockCols = 16;  // NR

[[gnu::always_inline]] inline void ask_for_block_lines(std::size_t kc, const float* c, std::ptrdiff_t ldc,
                                                      const float* residual, std::ptrdiff_t ld) noexcept {
  if (kc == 0) return;
  const std::uintptr_t ahead = sizeof(float) * kBlockCols * prefetch_blocks_ahead(kc);
  const auto at = [ahead](const float* row) {
    return reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(row) + ahead);
  };
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    if (residual != nullptr) _mm_prefetch(at(residual + r * ld), _MM_HINT_T0);
    __builtin_prefetch(at(c + r * ldc), 1, 3);
  }
}

// Fast mode only (the driver never passes kGemmCanonicalNan here): the 6 x 16 fused kernel's
// accumulation, then store_rows instead of the plain stores. The epilogue is chosen before the
// products, so that each choice runs its products and its stores in one function with the
// accumulators in registers (gemm_micro_avx512.cpp, fused_store).
void fused_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                 std::uint32_t flags, const GemmStoreOps& ops, std::size_t row, std::size_t col) {
  const std::ptrdiff_t ld = static_cast<std::ptrdiff_t>(ops.residual_ld);
  const float* residual = ops.residual != nullptr ? ops.residual + row * ops.residual_ld + col : nullptr;
  ask_for_block_lines(kc, c, ldc, residual, ld);
  const fused_activation_avx2::Args act{ops.activation, _mm256_set1_ps(ops.alpha), _mm256_set1_ps(ops.beta), ops.fast};
  const float* bias = ops.bias + row;
  const auto run = [&](auto with_residual, auto activate, auto op) {
    __m256 acc0[kRows];
    __m256 acc1[kRows];
    accumulate_6x16<true>(kc, a, b, ldb, c, ldc, flags, acc0, acc1);
    store_rows<decltype(with_residual)::value, decltype(activate)::value, decltype(op)::value>(acc0, acc1, c, ldc, bias,
                                                                                                residual, ld, act);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (!ops.activate) {
    const auto unused = std::integral_constant<ew::UnaryOp, ew::UnaryOp::Relu>{};  // no activation is applied
    return residual != nullptr ? run(Yes{}, No{}, unused) : run(No{}, No{}, unused);
  }
  fused_activation::with_op(ops.activation, [&](auto op) {
    if (residual != nullptr) {
      run(Yes{}, Yes{}, op);
    } else {
      run(No{}, Yes{}, op);
    }
  });
}

}  // namespace

void f32_gemm_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags) {
  kernel_6x16<true>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags) {
  kernel_6x16<false>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_6x16__avx2_fma_store(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::uint32_t flags, const GemmStoreOps& ops, std::size_t row,
                                   std::size_t col) {
  fused_store(kc, a, b, ldb, c, ldc, flags, ops, row, col);
}

}  // namespace onemodel::opt::gemm
