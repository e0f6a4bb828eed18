// The activations a convolution applies in its own stores on the AVX-512 path (the one-pass
// epilogue, conv_bias_rows.hpp; the stem tile, conv_stem_avx512.cpp; the product's store kernel,
// gemm_micro_avx512.cpp) instead of a separate pass of the element-wise kernel: Relu, Clip,
// LeakyRelu, HardSwish and SiLU (exact or fast, as the node's UnaryArgs say), each exactly as
// lane_loops.hpp computes it (Relu, Clip and LeakyRelu written out below in the same operations;
// HardSwish and SiLU by the very lane_math.hpp functions the element-wise kernel runs, over its
// own lanes type), so the bits are the separate pass's (spec/ops/elementwise.md). Include only
// from files compiled with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/lane_math.hpp"
#include "optimized/kernels/elementwise/lanes_avx512.hpp"

namespace onemodel::opt::fused_activation {

struct Args {
  ew::UnaryOp op;
  __m512 alpha, beta;
  bool fast = false;  // SiLU only: the fast-mode sigmoid (UnaryArgs::fast)
};

inline Args args_of(const ConvActivation& activation) noexcept {
  return Args{activation.args.op, _mm512_set1_ps(activation.args.alpha), _mm512_set1_ps(activation.args.beta),
              activation.args.fast};
}

// r with 0x7FC00000 where x is NaN: for the activations whose result is NaN exactly where their
// input is (Relu, Clip), one test where canonical_of makes two.
inline __m512 canonical_where_nan(__m512 x, __m512 r) noexcept {
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

// A NaN input (Relu's select drops it) or a NaN result (LeakyRelu's product) stores as canonical.
inline __m512 canonical_of(__m512 v, __m512 r) noexcept {
  const __mmask16 nan = static_cast<__mmask16>(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q));
  return _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

// One vector through activation kOp (one of those activation_fuses_in_store names), every NaN
// then 0x7FC00000 (exact-mode.md rule 4, as the element-wise kernel stores in both modes).
template <ew::UnaryOp kOp>
inline __m512 apply_op(const Args& a, __m512 v) noexcept {
  if constexpr (kOp == ew::UnaryOp::Clip) {  // v < lo -> lo; then v > hi -> hi
    __m512 r = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, a.alpha, _CMP_LT_OQ), a.alpha);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, a.beta, _CMP_GT_OQ), a.beta);
    // Ordered comparisons: a NaN v (or bound) moves nothing, so r is NaN exactly where v is.
    return canonical_where_nan(v, r);
  } else if constexpr (kOp == ew::UnaryOp::LeakyRelu) {  // x < 0 ? alpha * x : x, the product rounded
    const __m512 r =
        _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_mul_ps(a.alpha, v));
    return canonical_of(v, r);
  } else if constexpr (kOp == ew::UnaryOp::HardSwish) {  // ends canonical itself
    return ew::hard_swish<ew::Avx512Lanes>(v);
  } else if constexpr (kOp == ew::UnaryOp::Silu) {  // ends canonical itself
    return a.fast ? ew::fast_silu<ew::Avx512Lanes>(v) : ew::silu<ew::Avx512Lanes>(v);
  } else {  // Relu: x > 0 ? x : +0
    static_assert(kOp == ew::UnaryOp::Relu);
    // vmaxps returns its second operand unless the first is greater: +0 for -0, +0 and NaN, x
    // above +0; then a NaN x stores as 0x7FC00000. Three operations where a select and
    // canonical_of's two tests took six: a 16 -> 64 1x1 layer at 112 x 112 (16 products per
    // output) 338-344 -> 277-278 us (AMD EPYC Zen 4, one thread, session 33). The all-lanes
    // zero-masked form: GCC 12 at -O1 warns -Wmaybe-uninitialized inside the unmasked intrinsic.
    const __m512 r = _mm512_maskz_max_ps(static_cast<__mmask16>(0xFFFF), v, _mm512_setzero_ps());
    return canonical_where_nan(v, r);
  }
}

// apply_op with the activation chosen per call.
inline __m512 apply(const Args& a, __m512 v) noexcept {
  return with_op(a.op, [&](auto op) { return apply_op<decltype(op)::value>(a, v); });
}

}  // namespace onemodel::opt::fused_activation
