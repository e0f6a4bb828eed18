// The activations the AVX2 product's store kernel applies in its own stores (gemm_micro_avx2.cpp)
// instead of a separate pass of the element-wise kernel: Relu, Clip, LeakyRelu, HardSwish and
// SiLU (exact or fast, as the node's UnaryArgs say), each exactly as lane_loops.hpp computes it:
// Relu, Clip and LeakyRelu written out below in the same operations as the AVX-512 stores
// (fused_activation_avx512.hpp), HardSwish and SiLU by the very lane_math.hpp functions the
// element-wise kernel runs over the AVX2 lanes type, so the bits are the separate pass's
// (spec/ops/elementwise.md). Include only from files compiled with the AVX2 flags.
#pragma once

#include <immintrin.h>

#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/lane_math.hpp"
#include "optimized/kernels/elementwise/lanes_avx2.hpp"

namespace onemodel::opt::fused_activation_avx2 {

struct Args {
  ew::UnaryOp op;
  __m256 alpha, beta;
  bool fast = false;  // SiLU only: the fast-mode sigmoid (UnaryArgs::fast)
};

inline __m256 canonical_nan_bits() noexcept { return _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)); }

// r with 0x7FC00000 where x is NaN: for the activations whose result is NaN exactly where their
// input is (Relu, Clip).
inline __m256 canonical_where_nan(__m256 x, __m256 r) noexcept {
  return _mm256_blendv_ps(r, canonical_nan_bits(), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// A NaN input or a NaN result (LeakyRelu's product) stores as canonical.
inline __m256 canonical_of(__m256 v, __m256 r) noexcept {
  const __m256 nan = _mm256_or_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q), _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
  return _mm256_blendv_ps(r, canonical_nan_bits(), nan);
}

// One vector through activation kOp (one of those activation_fuses_in_store names), every NaN
// then 0x7FC00000 (exact-mode.md rule 4, as the element-wise kernel stores in both modes).
template <ew::UnaryOp kOp>
inline __m256 apply_op(const Args& a, __m256 v) noexcept {
  if constexpr (kOp == ew::UnaryOp::Clip) {  // v < lo -> lo; then v > hi -> hi
    __m256 r = _mm256_blendv_ps(v, a.alpha, _mm256_cmp_ps(v, a.alpha, _CMP_LT_OQ));
    r = _mm256_blendv_ps(r, a.beta, _mm256_cmp_ps(r, a.beta, _CMP_GT_OQ));
    // Ordered comparisons: a NaN v (or bound) moves nothing, so r is NaN exactly where v is.
    return canonical_where_nan(v, r);
  } else if constexpr (kOp == ew::UnaryOp::LeakyRelu) {  // x < 0 ? alpha * x : x, the product rounded
    const __m256 r =
        _mm256_blendv_ps(v, _mm256_mul_ps(a.alpha, v), _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
    return canonical_of(v, r);
  } else if constexpr (kOp == ew::UnaryOp::HardSwish) {  // ends canonical itself
    return ew::hard_swish<ew::Avx2Lanes>(v);
  } else if constexpr (kOp == ew::UnaryOp::Silu) {  // ends canonical itself
    return a.fast ? ew::fast_silu<ew::Avx2Lanes>(v) : ew::silu<ew::Avx2Lanes>(v);
  } else {  // Relu: x > 0 ? x : +0
    static_assert(kOp == ew::UnaryOp::Relu);
    // vmaxps returns its second operand unless the first is greater: +0 for -0, +0 and NaN, x
    // above +0; then a NaN x stores as 0x7FC00000 (fused_activation_avx512.hpp).
    return canonical_where_nan(v, _mm256_max_ps(v, _mm256_setzero_ps()));
  }
}

}  // namespace onemodel::opt::fused_activation_avx2
