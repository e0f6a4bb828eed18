// The AVX2+FMA path of the depthwise plane walk (kernels-depthwise.md): 8 lanes of neighbouring
// output columns; narrower outputs use 4 lanes, then the scalar twin (the widest lane type that
// fits the output width). Fast mode: one fused multiply-add per tap on every lane type.
#include <immintrin.h>

#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {
namespace {

struct Avx2Lanes {
  using V = __m256;
  static constexpr std::size_t kWidth = 8;
  static V zero() noexcept { return _mm256_setzero_ps(); }
  static V set1(float v) noexcept { return _mm256_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm256_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm256_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm256_fmadd_ps(w, x, acc); }
  // exact-mode.md rule 4: NaN lanes become 0x7FC00000.
  static V canonical(V v) noexcept {
    return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
};

struct FusedQuadLanes {
  using V = __m128;
  static constexpr std::size_t kWidth = 4;
  static V zero() noexcept { return _mm_setzero_ps(); }
  static V set1(float v) noexcept { return _mm_set1_ps(v); }
  static V load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static void store(float* p, V v) noexcept { _mm_storeu_ps(p, v); }
  static V add(V a, V b) noexcept { return _mm_add_ps(a, b); }
  static V mul(V a, V b) noexcept { return _mm_mul_ps(a, b); }
  static V madd(V acc, V w, V x) noexcept { return _mm_fmadd_ps(w, x, acc); }
  static V canonical(V v) noexcept {
    return _mm_blendv_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_cmpunord_ps(v, v));
  }
};

}  // namespace

void depthwise_plane_avx2(const DepthwisePlaneJob& job) {
  if (job.out_w >= Avx2Lanes::kWidth) {
    depthwise_detail::walk_plane<Avx2Lanes>(job);
  } else if (job.out_w >= FusedQuadLanes::kWidth) {
    depthwise_detail::walk_plane<FusedQuadLanes>(job);
  } else {
    depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<true>>(job);
  }
}

// Unstrided rows of at least 8 columns by whole vectors, the last one moved back to end at the
// row's last column (it rewrites the same values): the compiler's loop finished each row of 14
// (3x3 at 14 x 14) with six scalar copies, and the copy had taken a fifth of the layer. Only data
// moves.
void depthwise_phase_rows_avx2(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                               std::size_t rows, float* out, std::size_t out_step) {
  if (stride == 1 && count >= Avx2Lanes::kWidth) {
    for (std::size_t r = 0; r < rows; ++r, src += src_step, out += out_step) {
      std::size_t j = 0;
      for (; j + Avx2Lanes::kWidth <= count; j += Avx2Lanes::kWidth) Avx2Lanes::store(out + j, Avx2Lanes::load(src + j));
      if (j < count) {
        const std::size_t last = count - Avx2Lanes::kWidth;
        Avx2Lanes::store(out + last, Avx2Lanes::load(src + last));
      }
    }
    return;
  }
  depthwise_detail::copy_phase_rows<Avx2Lanes>(src, src_step, stride, count, rows, out, out_step);
}

}  // namespace onemodel::opt
