// SSE 4x4 register transpose of 4-byte elements (tile_paths.hpp), moves only.
#include <smmintrin.h>

#include "optimized/kernels/transpose/tile_paths.hpp"

namespace onemodel::opt::tr {
namespace {

struct Block4x4Sse {
  void operator()(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row) const {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(src));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(src + src_col));
    __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(src + 2 * src_col));
    __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(src + 3 * src_col));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float*>(dst), r0);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + dst_row), r1);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + 2 * dst_row), r2);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + 3 * dst_row), r3);
  }
};

}  // namespace

void transpose_tile_4byte__sse(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,
                               std::int64_t dst_row, std::size_t rows, std::size_t cols) {
  tile_in_blocks<4>(Block4x4Sse{}, src, src_col, dst, dst_row, rows, cols);
}

}  // namespace onemodel::opt::tr
