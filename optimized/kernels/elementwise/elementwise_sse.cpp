// The SSE4.1 path of the element-wise kernels: 4 lanes of the sequences in lane_math.hpp. Only
// unfused IEEE operations, comparisons that are false for NaN (as C's < and >), blends (SSE4.1)
// for the selections.
#include <smmintrin.h>

#include <cstdint>

#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/elementwise/lane_loops.hpp"

namespace onemodel::opt::ew {
namespace {

struct SseLanes {
  using F = __m128;
  using M = __m128;
  using I = __m128i;
  static constexpr std::size_t kWidth = 4;
  static F load(const float* p) noexcept { return _mm_loadu_ps(p); }
  static void store(float* p, F v) noexcept { _mm_storeu_ps(p, v); }
  static F splat(float v) noexcept { return _mm_set1_ps(v); }
  static I splat_i(std::uint32_t v) noexcept { return _mm_set1_epi32(static_cast<int>(v)); }
  static F add(F a, F b) noexcept { return _mm_add_ps(a, b); }
  static F sub(F a, F b) noexcept { return _mm_sub_ps(a, b); }
  static F mul(F a, F b) noexcept { return _mm_mul_ps(a, b); }
  static F div(F a, F b) noexcept { return _mm_div_ps(a, b); }
  static F sqrt(F a) noexcept { return _mm_sqrt_ps(a); }
  static M lt(F a, F b) noexcept { return _mm_cmplt_ps(a, b); }
  static M gt(F a, F b) noexcept { return _mm_cmpgt_ps(a, b); }
  static M ge(F a, F b) noexcept { return _mm_cmpge_ps(a, b); }
  static M eq(F a, F b) noexcept { return _mm_cmpeq_ps(a, b); }
  static M is_nan(F a) noexcept { return _mm_cmpunord_ps(a, a); }
  static bool all(M m) noexcept { return _mm_movemask_ps(m) == 0xF; }
  static F select(M m, F t, F f) noexcept { return _mm_blendv_ps(f, t, m); }
  static I bits(F a) noexcept { return _mm_castps_si128(a); }
  static F from_bits(I u) noexcept { return _mm_castsi128_ps(u); }
  static I add_i(I a, I b) noexcept { return _mm_add_epi32(a, b); }
  static I sub_i(I a, I b) noexcept { return _mm_sub_epi32(a, b); }
  static I and_i(I a, I b) noexcept { return _mm_and_si128(a, b); }
  static I or_i(I a, I b) noexcept { return _mm_or_si128(a, b); }
  static I xor_i(I a, I b) noexcept { return _mm_xor_si128(a, b); }
  template <int N>
  static I srai(I a) noexcept {
    return _mm_srai_epi32(a, N);
  }
  template <int N>
  static I slli(I a) noexcept {
    return _mm_slli_epi32(a, N);
  }
};

}  // namespace

void unary_f32__sse(const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  unary_lanes<SseLanes>(args, x, y, n);
}

void scale_shift_activation_f32__sse(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                     std::size_t n) {
  scale_shift_activation_lanes<SseLanes>(a, shift, act, x, y, n);
}

void binary_f32__sse(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                     float* y, std::size_t n) {
  binary_lanes<SseLanes>(op, a, a_step, b, b_step, y, n);
}

}  // namespace onemodel::opt::ew
