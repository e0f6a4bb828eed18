// The NEON 8 x 12 microkernels (kernels-gemm.md, table under "Structure": 24 of 32 q registers
// hold the accumulators, multiply by element). Each step of k loads the 8 values of one packed A
// column as 2 vectors and the 12-wide packed B row as 3 vectors, then updates every accumulator
// with B times one lane of A: fast mode with vfmaq_laneq_f32 (kernels-gemm.md, "Fast mode"), exact
// mode with vmulq_laneq_f32, rounded, then vaddq_f32, rounded (exact-mode.md rule 1). Lanes hold
// different outputs, never terms of one output (exact-mode.md rule 2). aarch64 only.
#include <arm_neon.h>

#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

template <bool kFused, int kLane>
inline float32x4_t step(float32x4_t acc, float32x4_t b, float32x4_t a) noexcept {
  if constexpr (kFused) {
    return vfmaq_laneq_f32(acc, b, a, kLane);
  } else {
    const float32x4_t prod = vmulq_laneq_f32(b, a, kLane);
    return vaddq_f32(acc, prod);
  }
}

// One row of accumulators: the 12 B values times that row's A value, lane kLane of the A vector
// holding the row.
template <bool kFused, int kLane>
inline void update_row(float32x4_t& c0, float32x4_t& c1, float32x4_t& c2, float32x4_t a, float32x4_t b0,
                       float32x4_t b1, float32x4_t b2) noexcept {
  c0 = step<kFused, kLane>(c0, b0, a);
  c1 = step<kFused, kLane>(c1, b1, a);
  c2 = step<kFused, kLane>(c2, b2, a);
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline float32x4_t canonical_nan(float32x4_t v) noexcept {
  const float32x4_t nan = vreinterpretq_f32_u32(vdupq_n_u32(0x7FC00000u));
  return vbslq_f32(vceqq_f32(v, v), v, nan);
}

inline void load_row(const float* c, bool accumulate, float32x4_t& c0, float32x4_t& c1, float32x4_t& c2) noexcept {
  if (accumulate) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
    c0 = vld1q_f32(c);
    c1 = vld1q_f32(c + 4);
    c2 = vld1q_f32(c + 8);
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
    c0 = c1 = c2 = vdupq_n_f32(0.0f);
  }
}

inline void store_row(float* c, bool canonical, float32x4_t c0, float32x4_t c1, float32x4_t c2) noexcept {
  if (canonical) {
    c0 = canonical_nan(c0);
    c1 = canonical_nan(c1);
    c2 = canonical_nan(c2);
  }
  vst1q_f32(c, c0);
  vst1q_f32(c + 4, c1);
  vst1q_f32(c + 8, c2);
}

// Separate variables rather than an array keep all 24 accumulators in registers.
template <bool kFused>
inline void kernel_8x12(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                        std::uint32_t flags) noexcept {
  float32x4_t c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32, c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
  const bool accumulate = (flags & kGemmAccumulate) != 0;
  load_row(c + 0 * ldc, accumulate, c00, c01, c02);
  load_row(c + 1 * ldc, accumulate, c10, c11, c12);
  load_row(c + 2 * ldc, accumulate, c20, c21, c22);
  load_row(c + 3 * ldc, accumulate, c30, c31, c32);
  load_row(c + 4 * ldc, accumulate, c40, c41, c42);
  load_row(c + 5 * ldc, accumulate, c50, c51, c52);
  load_row(c + 6 * ldc, accumulate, c60, c61, c62);
  load_row(c + 7 * ldc, accumulate, c70, c71, c72);
  for (std::size_t p = 0; p < kc; ++p) {
    const float32x4_t a0 = vld1q_f32(a);
    const float32x4_t a1 = vld1q_f32(a + 4);
    const float32x4_t b0 = vld1q_f32(b);
    const float32x4_t b1 = vld1q_f32(b + 4);
    const float32x4_t b2 = vld1q_f32(b + 8);
    update_row<kFused, 0>(c00, c01, c02, a0, b0, b1, b2);
    update_row<kFused, 1>(c10, c11, c12, a0, b0, b1, b2);
    update_row<kFused, 2>(c20, c21, c22, a0, b0, b1, b2);
    update_row<kFused, 3>(c30, c31, c32, a0, b0, b1, b2);
    update_row<kFused, 0>(c40, c41, c42, a1, b0, b1, b2);
    update_row<kFused, 1>(c50, c51, c52, a1, b0, b1, b2);
    update_row<kFused, 2>(c60, c61, c62, a1, b0, b1, b2);
    update_row<kFused, 3>(c70, c71, c72, a1, b0, b1, b2);
    a += 8;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  store_row(c + 0 * ldc, canonical, c00, c01, c02);
  store_row(c + 1 * ldc, canonical, c10, c11, c12);
  store_row(c + 2 * ldc, canonical, c20, c21, c22);
  store_row(c + 3 * ldc, canonical, c30, c31, c32);
  store_row(c + 4 * ldc, canonical, c40, c41, c42);
  store_row(c + 5 * ldc, canonical, c50, c51, c52);
  store_row(c + 6 * ldc, canonical, c60, c61, c62);
  store_row(c + 7 * ldc, canonical, c70, c71, c72);
}

}  // namespace

void f32_gemm_8x12__neon_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags) {
  kernel_8x12<true>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_8x12__neon_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags) {
  kernel_8x12<false>(kc, a, b, ldb, c, ldc, flags);
}

}  // namespace onemodel::opt::gemm
