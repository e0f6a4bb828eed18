#include "optimized/kernels/gemm/gemm_pack.hpp"

#include <algorithm>
#include <cstring>

#include "optimized/kernels/gemm/gemm_path.hpp"

namespace onemodel::opt::gemm {

std::size_t packed_b_size(std::size_t k, std::size_t n, std::size_t nr) noexcept {
  return k * strip_count(n, nr) * nr;
}

std::size_t packed_b_offset(std::size_t k, std::size_t n, std::size_t nr, std::size_t block, std::size_t p0,
                            std::size_t strip) noexcept {
  const std::size_t padded_n = strip_count(n, nr) * nr;
  const std::size_t kc = std::min(block, k - p0);
  return p0 * padded_n + strip * kc * nr;
}

std::size_t pack_b_chunk_count(std::size_t k, std::size_t n, std::size_t nr, std::size_t block) noexcept {
  const std::size_t blocks = (k + block - 1) / block;
  return blocks * strip_count(strip_count(n, nr), kPackStripsPerChunk);
}

// One strip: rows [p0, p0 + kc), columns [j0, j0 + nr) of B; columns at or past n are +0.
void pack_b_strip(MatrixView b, std::size_t n, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t nr,
                  float* out) {
  const std::size_t valid = std::min(nr, n - j0);
  if (b.col_stride == 1 && valid == nr && (nr == 32 || nr == 16)) {
    // A full strip of the widest paths: each row's piece is a copy of a size known here, which the
    // compiler makes a few vector moves (a library call per 128-byte row was 4.5% of a 256 -> 128
    // 1x1 convolution at 28 x 28 on AVX-512).
    const auto rows = [&]<std::size_t kWidth>() {
      for (std::size_t p = 0; p < kc; ++p) {
        const float* src = b.data + static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride + static_cast<std::ptrdiff_t>(j0);
        std::memcpy(out + p * kWidth, src, kWidth * sizeof(float));
      }
    };
    if (nr == 32) {
      rows.template operator()<32>();
    } else {
      rows.template operator()<16>();
    }
    return;
  }
  if (b.col_stride == 1) {
    // Rows of B are contiguous: copy each row's piece.
    for (std::size_t p = 0; p < kc; ++p) {
      const float* src = b.data + static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride + static_cast<std::ptrdiff_t>(j0);
      float* dst = out + p * nr;
      std::memcpy(dst, src, valid * sizeof(float));
      for (std::size_t j = valid; j < nr; ++j) dst[j] = 0.0f;
    }
    return;
  }
  // Columns walked one at a time (B given transposed: each column contiguous in k).
  for (std::size_t j = 0; j < nr; ++j) {
    if (j < valid) {
      const float* src = b.data + static_cast<std::ptrdiff_t>(j0 + j) * b.col_stride;
      for (std::size_t p = 0; p < kc; ++p) out[p * nr + j] = src[static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride];
    } else {
      for (std::size_t p = 0; p < kc; ++p) out[p * nr + j] = 0.0f;
    }
  }
}


void pack_b_chunk(std::size_t k, std::size_t n, std::size_t nr, std::size_t block, MatrixView b, float* packed,
                  std::size_t chunk) {
  const std::size_t strips = strip_count(n, nr);
  const std::size_t chunks_per_block = strip_count(strips, kPackStripsPerChunk);
  const std::size_t p0 = (chunk / chunks_per_block) * block;
  const std::size_t kc = std::min(block, k - p0);
  const std::size_t first = (chunk % chunks_per_block) * kPackStripsPerChunk;
  const std::size_t last = std::min(strips, first + kPackStripsPerChunk);
  for (std::size_t s = first; s < last; ++s) {
    pack_b_strip(b, n, p0, kc, s * nr, nr, packed + packed_b_offset(k, n, nr, block, p0, s));
  }
}

void pack_a_block(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, std::size_t mr,
                  float* out) {
  for (std::size_t s = 0; s * mr < rows; ++s) {
    float* dst = out + s * mr * kc;
    const std::size_t r0 = row0 + s * mr;
    const std::size_t valid = std::min(mr, rows - s * mr);
    if (a.col_stride == 1) {
      // Rows of A are contiguous in k: one row at a time into every mr-th place.
      for (std::size_t r = 0; r < valid; ++r) {
        const float* src = a.data + static_cast<std::ptrdiff_t>(r0 + r) * a.row_stride + static_cast<std::ptrdiff_t>(p0);
        for (std::size_t p = 0; p < kc; ++p) dst[p * mr + r] = src[p];
      }
      for (std::size_t r = valid; r < mr; ++r) {
        for (std::size_t p = 0; p < kc; ++p) dst[p * mr + r] = 0.0f;
      }
      continue;
    }
    for (std::size_t p = 0; p < kc; ++p) {
      const float* src = a.data + static_cast<std::ptrdiff_t>(p0 + p) * a.col_stride;
      for (std::size_t r = 0; r < valid; ++r) dst[p * mr + r] = src[static_cast<std::ptrdiff_t>(r0 + r) * a.row_stride];
      for (std::size_t r = valid; r < mr; ++r) dst[p * mr + r] = 0.0f;
    }
  }
}

static_assert(kMaxKc == 512, "kPackZeroRow holds the longest k-block");
alignas(kPackAlignment) const float kPackZeroRow[kMaxKc] = {};

namespace {

// Row-major A (rows contiguous in k): the strip is written in order, p after p, each step
// gathering one value from each of the MR rows, so the stores are sequential and the MR source
// rows are read as MR forward streams (the earlier row-at-a-time scatter wrote every MR-th
// float of the whole strip once per row). Padding rows read kPackZeroRow.
template <std::size_t MR>
void pack_a_fixed(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  if (a.col_stride != 1) {
    pack_a_block(a, row0, rows, p0, kc, MR, out);
    return;
  }
  for (std::size_t s = 0; s * MR < rows; ++s) {
    const std::size_t valid = std::min(MR, rows - s * MR);
    const float* src[MR];
    for (std::size_t r = 0; r < MR; ++r) {
      src[r] = r < valid ? a.data + static_cast<std::ptrdiff_t>(row0 + s * MR + r) * a.row_stride +
                               static_cast<std::ptrdiff_t>(p0)
                         : kPackZeroRow;
    }
    float* dst = out + s * MR * kc;
    for (std::size_t p = 0; p < kc; ++p) {
      for (std::size_t r = 0; r < MR; ++r) dst[p * MR + r] = src[r][p];
    }
  }
}

}  // namespace

void pack_a_4(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  pack_a_fixed<4>(a, row0, rows, p0, kc, out);
}

void pack_a_8(MatrixView a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, float* out) {
  pack_a_fixed<8>(a, row0, rows, p0, kc, out);
}

}  // namespace onemodel::opt::gemm
