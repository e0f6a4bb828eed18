// AVX2 8x8 register transpose of 4-byte elements (tile_paths.hpp): unpack, shuffle and lane
// permute, moves only.
#include <immintrin.h>

#include "optimized/kernels/transpose/tile_paths.hpp"
#include "optimized/kernels/transpose/transpose8_avx2.hpp"

namespace onemodel::opt::tr {
namespace {

struct Block8x8Avx2 {
  void operator()(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row) const {
    __m256 r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + k * src_col));
    __m256 out[8];
    avx2_transpose::transpose8(r, out);
    for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(dst + k * dst_row), out[k]);
  }
};

}  // namespace

void transpose_tile_4byte__avx2(const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst,
                                std::int64_t dst_row, std::size_t rows, std::size_t cols) {
  tile_in_blocks<8>(Block8x8Avx2{}, src, src_col, dst, dst_row, rows, cols);
}

}  // namespace onemodel::opt::tr
