// The bias step of the convolution epilogue in AVX-512 vectors (conv_bias_rows.hpp).
#include <immintrin.h>

#include "optimized/kernels/conv/conv_bias_rows.hpp"
#include "optimized/kernels/conv/fused_activation_avx512.hpp"

namespace onemodel::opt {

void conv_bias_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                            bool exact) {
  const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  const std::size_t full = cols / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols - full)) - 1u);
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    const __m512 b = _mm512_set1_ps(bias[r]);
    if (exact) {
      for (std::size_t j = 0; j < full; j += 16) {
        const __m512 v = _mm512_add_ps(_mm512_loadu_ps(line + j), b);
        _mm512_storeu_ps(line + j, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v, qnan));
      }
      if (tail != 0) {
        const __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(tail, line + full), b);
        _mm512_mask_storeu_ps(line + full, tail, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v, qnan));
      }
    } else {
      for (std::size_t j = 0; j < full; j += 16) _mm512_storeu_ps(line + j, _mm512_add_ps(_mm512_loadu_ps(line + j), b));
      if (tail != 0) {
        _mm512_mask_storeu_ps(line + full, tail, _mm512_add_ps(_mm512_maskz_loadu_ps(tail, line + full), b));
      }
    }
  }
}

namespace {

template <bool kResidual, ew::UnaryOp kOp>
void bias_residual_activation(float* c, std::ptrdiff_t ldc, const float* bias, const float* residual,
                              std::size_t plane, std::size_t rows, std::size_t cols,
                              const fused_activation::Args& activation) {
  const std::size_t full = cols / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols - full)) - 1u);
  const auto value = [&](const float* line, const float* res, __m512 b, std::size_t j, __mmask16 lanes) {
    __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, line + j), b);
    if constexpr (kResidual) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(lanes, res + j));
    return fused_activation::apply_op<kOp>(activation, v);
  };
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    const float* res = kResidual ? residual + r * plane : nullptr;
    const __m512 b = _mm512_set1_ps(bias[r]);
    for (std::size_t j = 0; j < full; j += 16) _mm512_storeu_ps(line + j, value(line, res, b, j, 0xFFFF));
    if (tail != 0) _mm512_mask_storeu_ps(line + full, tail, value(line, res, b, full, tail));
  }
}

}  // namespace

void conv_bias_residual_activation_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias,
                                                const float* residual, std::size_t plane, std::size_t rows,
                                                std::size_t cols, const ConvActivation& activation) {
  const fused_activation::Args args = fused_activation::args_of(activation);
  fused_activation::with_op(args.op, [&](auto op) {
    if (residual != nullptr) {
      bias_residual_activation<true, decltype(op)::value>(c, ldc, bias, residual, plane, rows, cols, args);
    } else {
      bias_residual_activation<false, decltype(op)::value>(c, ldc, bias, nullptr, plane, rows, cols, args);
    }
  });
}

}  // namespace onemodel::opt
