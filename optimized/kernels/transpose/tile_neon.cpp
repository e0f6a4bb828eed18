// NEON 4x4 register transpose of 4-byte elements (tile_paths.hpp): vtrn then half swaps, moves only.
#include <arm_neon.h>

#include "optimized/kernels/transpose/tile_paths.hpp"

namespace onemodel::opt::tr {
namespace {

struct Block4x4Neon {
  void operator()(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row) const {
    const uint32x4x2_t ab = vtrnq_u32(vld1q_u32(src), vld1q_u32(src + src_col));
    const uint32x4x2_t cd = vtrnq_u32(vld1q_u32(src + 2 * src_col), vld1q_u32(src + 3 * src_col));
    vst1q_u32(dst, vcombine_u32(vget_low_u32(ab.val[0]), vget_low_u32(cd.val[0])));
    vst1q_u32(dst + dst_row, vcombine_u32(vget_low_u32(ab.val[1]), vget_low_u32(cd.val[1])));
    vst1q_u32(dst + 2 * dst_row, vcombine_u32(vget_high_u32(ab.val[0]), vget_high_u32(cd.val[0])));
    vst1q_u32(dst + 3 * dst_row, vcombine_u32(vget_high_u32(ab.val[1]), vget_high_u32(cd.val[1])));
  }
};

}  // namespace

void transpose_tile_4byte__neon(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,
                                std::int64_t dst_row, std::size_t rows, std::size_t cols) {
  tile_in_blocks<4>(Block4x4Neon{}, src, src_col, dst, dst_row, rows, cols);
}

}  // namespace onemodel::opt::tr
