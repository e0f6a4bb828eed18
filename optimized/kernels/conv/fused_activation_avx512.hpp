// The activations a convolution applies in its own stores on the AVX-512 path (the one-pass
// epilogue, conv_bias_rows.hpp; the stem tile, conv_stem_avx512.cpp) instead of a separate pass
// of the element-wise kernel: Relu, Clip and LeakyRelu, each exactly as lane_loops.hpp computes it
// (spec/ops/elementwise.md), so the bits are the separate pass's. Include only from files
// compiled with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt::fused_activation {

struct Args {
  ew::UnaryOp op;
  __m512 alpha, beta;
};

inline Args args_of(const ConvActivation& activation) noexcept {
  return Args{activation.args.op, _mm512_set1_ps(activation.args.alpha), _mm512_set1_ps(activation.args.beta)};
}

// One vector through the activation, then every NaN 0x7FC00000 (exact-mode.md rule 4, as the
// element-wise kernel stores in both modes).
inline __m512 apply(const Args& a, __m512 v) noexcept {
  const __m512 zero = _mm512_setzero_ps();
  __m512 r;
  switch (a.op) {
    case ew::UnaryOp::Clip:  // v < lo -> lo; then v > hi -> hi
      r = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, a.alpha, _CMP_LT_OQ), a.alpha);
      r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, a.beta, _CMP_GT_OQ), a.beta);
      break;
    case ew::UnaryOp::LeakyRelu:  // x < 0 ? alpha * x : x, the product rounded
      r = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), _mm512_mul_ps(a.alpha, v));
      break;
    default:  // Relu: x > 0 ? x : +0
      r = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ), v);
      break;
  }
  // A NaN input (Relu's select drops it) or a NaN result (LeakyRelu's product) stores as canonical.
  const __mmask16 nan = static_cast<__mmask16>(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q));
  return _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

}  // namespace onemodel::opt::fused_activation
