// The NEON dot-product kernel, 4 x 16 (int8.md, "Product kernel": Arm with SDOT, G = 4, tile 4x16,
// int8 both sides). B keeps the pair layout every path shares (int8_gemm.hpp), so a B packed for
// the Neon level serves this kernel and the widening one alike: two consecutive pairs of 16
// columns are interleaved 16 bits at a time (zip1/zip2), which gives each column its four k in one
// 32-bit group, SDOT's operand. A is packed in quads ([quad][row][4] int8), so one 128-bit load
// holds the four rows' groups and sdot by lane picks a row. Each lane adds four int8 x int8
// products (at most 2^16 in magnitude) to its int32 accumulator, wrapping modulo 2^32 like every
// other path (proofs/int8_accumulation). Called only when the CPU reports the dot product
// (int8_cpu.cpp); the function alone is compiled for it.
#include <arm_neon.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {
namespace {

__attribute__((target("arch=armv8.2-a+dotprod"))) inline void quad_step(int32x4_t (&acc)[4][4], int8x16_t p0_lo, int8x16_t p0_hi,
                                                          int8x16_t p1_lo, int8x16_t p1_hi, int8x16_t a) {
  // Columns 0..3, 4..7 from the first 16 bytes of each pair (8 columns of [k0 k1] / [k2 k3]).
  const int16x8_t s0_lo = vreinterpretq_s16_s8(p0_lo), s1_lo = vreinterpretq_s16_s8(p1_lo);
  const int16x8_t s0_hi = vreinterpretq_s16_s8(p0_hi), s1_hi = vreinterpretq_s16_s8(p1_hi);
  const int8x16_t q[4] = {vreinterpretq_s8_s16(vzip1q_s16(s0_lo, s1_lo)), vreinterpretq_s8_s16(vzip2q_s16(s0_lo, s1_lo)),
                          vreinterpretq_s8_s16(vzip1q_s16(s0_hi, s1_hi)), vreinterpretq_s8_s16(vzip2q_s16(s0_hi, s1_hi))};
  for (int j = 0; j < 4; ++j) {
    acc[0][j] = vdotq_laneq_s32(acc[0][j], q[j], a, 0);
    acc[1][j] = vdotq_laneq_s32(acc[1][j], q[j], a, 1);
    acc[2][j] = vdotq_laneq_s32(acc[2][j], q[j], a, 2);
    acc[3][j] = vdotq_laneq_s32(acc[3][j], q[j], a, 3);
  }
}

}  // namespace

__attribute__((target("arch=armv8.2-a+dotprod"))) void micro_neon_sdot_4x16(std::size_t pairs, const std::int8_t* a_panel,
                                                              const std::int8_t* b_panel, std::int32_t* tile) {
  int32x4_t acc[4][4];
  for (auto& row : acc) {
    for (auto& v : row) v = vdupq_n_s32(0);
  }
  const std::size_t quads = pairs / 2;
  for (std::size_t q = 0; q < quads; ++q) {
    const std::int8_t* b = b_panel + q * 64;  // pairs 2q and 2q + 1, 32 bytes each
    quad_step(acc, vld1q_s8(b), vld1q_s8(b + 16), vld1q_s8(b + 32), vld1q_s8(b + 48), vld1q_s8(a_panel + q * 16));
  }
  if (pairs % 2 != 0) {  // the last pair alone: its partner is zero (and A's is packed zero)
    const std::int8_t* b = b_panel + quads * 64;
    const int8x16_t zero = vdupq_n_s8(0);
    quad_step(acc, vld1q_s8(b), vld1q_s8(b + 16), zero, zero, vld1q_s8(a_panel + quads * 16));
  }
  for (int r = 0; r < 4; ++r) {
    for (int j = 0; j < 4; ++j) vst1q_s32(tile + r * 16 + j * 4, acc[r][j]);
  }
}

}  // namespace onemodel::opt::int8
