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

constexpr int kMr = 8;
constexpr int kVectors = 3;  // 12 columns

template <bool kFused, int kLane>
inline float32x4_t step(float32x4_t acc, float32x4_t b, float32x4_t a) noexcept {
  if constexpr (kFused) {
    return vfmaq_laneq_f32(acc, b, a, kLane);
  } else {
    const float32x4_t prod = vmulq_laneq_f32(b, a, kLane);
    return vaddq_f32(acc, prod);
  }
}

template <bool kFused, int kRow>
inline void update_row(float32x4_t (&acc)[kMr][kVectors], float32x4_t a0, float32x4_t a1, float32x4_t b0,
                       float32x4_t b1, float32x4_t b2) noexcept {
  const float32x4_t a = kRow < 4 ? a0 : a1;
  acc[kRow][0] = step<kFused, kRow % 4>(acc[kRow][0], b0, a);
  acc[kRow][1] = step<kFused, kRow % 4>(acc[kRow][1], b1, a);
  acc[kRow][2] = step<kFused, kRow % 4>(acc[kRow][2], b2, a);
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline float32x4_t canonical_nan(float32x4_t v) noexcept {
  const float32x4_t nan = vreinterpretq_f32_u32(vdupq_n_u32(0x7FC00000u));
  return vbslq_f32(vceqq_f32(v, v), v, nan);
}

template <bool kFused>
inline void kernel_8x12(std::size_t kc, const float* a, const float* b, float* c, std::ptrdiff_t ldc,
                        std::uint32_t flags) noexcept {
  float32x4_t acc[kMr][kVectors];
  for (int r = 0; r < kMr; ++r) {
    for (int v = 0; v < kVectors; ++v) {
      // exact-mode.md rule 3: start from +0; a later k-block continues from the stored C
      // (kernels-gemm.md step 3).
      acc[r][v] = (flags & kGemmAccumulate) != 0 ? vld1q_f32(c + r * ldc + 4 * v) : vdupq_n_f32(0.0f);
    }
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const float32x4_t a0 = vld1q_f32(a);
    const float32x4_t a1 = vld1q_f32(a + 4);
    const float32x4_t b0 = vld1q_f32(b);
    const float32x4_t b1 = vld1q_f32(b + 4);
    const float32x4_t b2 = vld1q_f32(b + 8);
    update_row<kFused, 0>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 1>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 2>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 3>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 4>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 5>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 6>(acc, a0, a1, b0, b1, b2);
    update_row<kFused, 7>(acc, a0, a1, b0, b1, b2);
    a += 8;
    b += 12;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  for (int r = 0; r < kMr; ++r) {
    for (int v = 0; v < kVectors; ++v) {
      vst1q_f32(c + r * ldc + 4 * v, canonical ? canonical_nan(acc[r][v]) : acc[r][v]);
    }
  }
}

}  // namespace

void f32_gemm_8x12__neon_fma(std::size_t kc, const float* a, const float* b, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags) {
  kernel_8x12<true>(kc, a, b, c, ldc, flags);
}

void f32_gemm_8x12__neon_exact(std::size_t kc, const float* a, const float* b, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags) {
  kernel_8x12<false>(kc, a, b, c, ldc, flags);
}

}  // namespace onemodel::opt::gemm
