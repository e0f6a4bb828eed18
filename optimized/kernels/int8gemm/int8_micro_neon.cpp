// The NEON pair kernel, 4 x 16 (int8.md, "Product kernel"), for Arm processors without the dot
// product: the pair layout's arithmetic with widening multiply-accumulates. vld2q_s8 splits a
// pair of B's 16 columns into its k0 and k1 halves, vmovl_s8 widens them to int16, and
// smlal (vmlal_laneq_s16) adds b * a to each 32-bit lane: the int16 x int16 product is exact in
// 32 bits and the sum wraps modulo 2^32 like the scalar kernel's (proofs/int8_accumulation).
// 16 accumulators, 4 widened B vectors and the A pairs: 21 of the 32 vector registers.
#include <arm_neon.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {
namespace {

template <int Lane>
inline void rows_times(int32x4_t (&acc)[4], int16x8_t b_lo, int16x8_t b_hi, int16x8_t a) {
  acc[0] = vmlal_laneq_s16(acc[0], vget_low_s16(b_lo), a, Lane);
  acc[1] = vmlal_high_laneq_s16(acc[1], b_lo, a, Lane);
  acc[2] = vmlal_laneq_s16(acc[2], vget_low_s16(b_hi), a, Lane);
  acc[3] = vmlal_high_laneq_s16(acc[3], b_hi, a, Lane);
}

}  // namespace

void micro_neon_4x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  int32x4_t acc[4][4];
  for (auto& row : acc) {
    for (auto& v : row) v = vdupq_n_s32(0);
  }
  for (std::size_t p = 0; p < pairs; ++p) {
    const int8x16x2_t b = vld2q_s8(b_panel + p * 32);  // val[0]: k0 of columns 0..15, val[1]: k1
    const int16x8_t k0_lo = vmovl_s8(vget_low_s8(b.val[0])), k0_hi = vmovl_high_s8(b.val[0]);
    const int16x8_t k1_lo = vmovl_s8(vget_low_s8(b.val[1])), k1_hi = vmovl_high_s8(b.val[1]);
    const int16x8_t a = vld1q_s16(a_panel + p * 8);  // row r: lanes 2r (k0) and 2r + 1 (k1)
    rows_times<0>(acc[0], k0_lo, k0_hi, a);
    rows_times<1>(acc[0], k1_lo, k1_hi, a);
    rows_times<2>(acc[1], k0_lo, k0_hi, a);
    rows_times<3>(acc[1], k1_lo, k1_hi, a);
    rows_times<4>(acc[2], k0_lo, k0_hi, a);
    rows_times<5>(acc[2], k1_lo, k1_hi, a);
    rows_times<6>(acc[3], k0_lo, k0_hi, a);
    rows_times<7>(acc[3], k1_lo, k1_hi, a);
  }
  for (int r = 0; r < 4; ++r) {
    for (int j = 0; j < 4; ++j) vst1q_s32(tile + r * 16 + j * 4, acc[r][j]);
  }
}

}  // namespace onemodel::opt::int8
