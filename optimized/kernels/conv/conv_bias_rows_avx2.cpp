// The bias step of the convolution epilogue and the one-pass epilogue in AVX2 vectors
// (conv_bias_rows.hpp): the loops of conv_bias_rows_body.hpp over eight lanes, the AVX-512 path's
// steps on every value, so the same bits. Tails by vmaskmovps, whose masked-off lanes read nothing
// (no fault) and hold +0; the activations are those of the AVX2 store kernel
// (fused_activation_avx2.hpp). Compiled with the AVX2 flags of cmake/kernel_sources.cmake; called
// only on the AVX2 path.
#include <immintrin.h>

#include "optimized/kernels/conv/conv_bias_rows.hpp"
#include "optimized/kernels/conv/conv_bias_rows_body.hpp"
#include "optimized/kernels/conv/fused_activation_avx2.hpp"

namespace onemodel::opt {
namespace {

struct Avx2Rows {
  static constexpr std::size_t kLanes = 8;
  using Vec = __m256;
  using Tail = __m256i;  // all bits set in the lanes kept
  using Args = fused_activation_avx2::Args;
  static Tail tail(std::size_t n) noexcept {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec loadu(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void storeu(float* p, Vec v) noexcept { _mm256_storeu_ps(p, v); }
  static Vec load_tail(const float* p, Tail t) noexcept { return _mm256_maskload_ps(p, t); }
  static void store_tail(float* p, Tail t, Vec v) noexcept { _mm256_maskstore_ps(p, t, v); }
  static Vec splat(float x) noexcept { return _mm256_set1_ps(x); }
  static Vec add(Vec a, Vec b) noexcept { return _mm256_add_ps(a, b); }
  static Vec canonical(Vec v) noexcept {
    return _mm256_blendv_ps(v, fused_activation_avx2::canonical_nan_bits(), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  static Args args_of(const ConvActivation& activation) noexcept {
    return Args{activation.args.op, _mm256_set1_ps(activation.args.alpha), _mm256_set1_ps(activation.args.beta),
                activation.args.fast};
  }
  template <ew::UnaryOp kOp>
  static Vec apply_op(const Args& a, Vec v) noexcept {
    return fused_activation_avx2::apply_op<kOp>(a, v);
  }
};

}  // namespace

void conv_bias_rows__avx2(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                          bool exact) {
  conv_bias_rows_body::bias_rows<Avx2Rows>(c, ldc, bias, rows, cols, exact);
}

void conv_bias_residual_activation_rows__avx2(float* c, std::ptrdiff_t ldc, const float* bias, const float* residual,
                                              std::size_t plane, std::size_t rows, std::size_t cols,
                                              const ConvActivation& activation) {
  conv_bias_rows_body::bias_residual_activation_rows<Avx2Rows>(c, ldc, bias, residual, plane, rows, cols, activation);
}

}  // namespace onemodel::opt
