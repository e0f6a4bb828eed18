// Lanes of a row read straight from an unpadded input by AVX-512 kernels that keep sixteen
// neighbouring output columns in a register (the in-place depthwise kernels, depthwise_stride1.hpp
// and depthwise_stride2.hpp; the two-pass MaxPool, pool_max_rows.hpp): which lanes of a load
// starting at column `at` lie inside the row, and the masked load itself. A masked-off lane reads
// nothing (AVX-512 masking suppresses faults there) and holds the fill value. Include only from
// files built with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::row_lanes {

inline constexpr std::ptrdiff_t kLanes = 16;

// Lanes t in [0, 16) with lo <= t < hi.
inline __mmask16 between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
  if (hi <= 0 || lo >= kLanes || hi <= lo) return 0;
  const std::ptrdiff_t a = lo < 0 ? 0 : lo, b = hi > kLanes ? kLanes : hi;
  return static_cast<__mmask16>(((1u << (b - a)) - 1u) << a);
}

// Sixteen floats from row[at], lanes outside `mask` taken from `fill`. The address is formed as an
// integer: for masked-off lanes it may lie outside the row.
inline __m512 load(const float* row, std::ptrdiff_t at, __mmask16 mask, __m512 fill) noexcept {
  const std::uintptr_t address =
      reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(at) * sizeof(float);
  return _mm512_mask_loadu_ps(fill, mask, reinterpret_cast<const float*>(address));
}

// The same with +0 in the lanes outside `mask`.
inline __m512 load_or_zero(const float* row, std::ptrdiff_t at, __mmask16 mask) noexcept {
  const std::uintptr_t address =
      reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(at) * sizeof(float);
  return _mm512_maskz_loadu_ps(mask, reinterpret_cast<const float*>(address));
}

}  // namespace onemodel::opt::row_lanes
