// The bias step of the convolution epilogue and the one-pass epilogue in AVX-512 vectors
// (conv_bias_rows.hpp): the loops of conv_bias_rows_body.hpp over sixteen lanes, tails by masked
// loads and stores (masked-off lanes read +0 and nothing).
#include <immintrin.h>

#include "optimized/kernels/conv/conv_bias_rows.hpp"
#include "optimized/kernels/conv/conv_bias_rows_body.hpp"
#include "optimized/kernels/conv/fused_activation_avx512.hpp"

namespace onemodel::opt {
namespace {

struct Avx512Rows {
  static constexpr std::size_t kLanes = 16;
  using Vec = __m512;
  using Tail = __mmask16;
  using Args = fused_activation::Args;
  static Tail tail(std::size_t n) noexcept { return static_cast<__mmask16>((1u << n) - 1u); }
  static Vec loadu(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void storeu(float* p, Vec v) noexcept { _mm512_storeu_ps(p, v); }
  static Vec load_tail(const float* p, Tail t) noexcept { return _mm512_maskz_loadu_ps(t, p); }
  static void store_tail(float* p, Tail t, Vec v) noexcept { _mm512_mask_storeu_ps(p, t, v); }
  static Vec splat(float x) noexcept { return _mm512_set1_ps(x); }
  static Vec add(Vec a, Vec b) noexcept { return _mm512_add_ps(a, b); }
  static Vec canonical(Vec v) noexcept {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v,
                                _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
  }
  static Args args_of(const ConvActivation& activation) noexcept { return fused_activation::args_of(activation); }
  template <ew::UnaryOp kOp>
  static Vec apply_op(const Args& a, Vec v) noexcept {
    return fused_activation::apply_op<kOp>(a, v);
  }
};

}  // namespace

void conv_bias_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                            bool exact) {
  conv_bias_rows_body::bias_rows<Avx512Rows>(c, ldc, bias, rows, cols, exact);
}

void conv_bias_residual_activation_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias,
                                                const float* residual, std::size_t plane, std::size_t rows,
                                                std::size_t cols, const ConvActivation& activation) {
  conv_bias_rows_body::bias_residual_activation_rows<Avx512Rows>(c, ldc, bias, residual, plane, rows, cols,
                                                                 activation);
}

}  // namespace onemodel::opt
