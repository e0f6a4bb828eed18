// The blocked squeeze-and-excitation pair on the AVX-512 path (nchwc.hpp): the global average of
// each channel and the product by a per-channel factor, both on sixteen channels per vector, so a
// depthwise layer followed by a squeeze-and-excitation block keeps the blocked layout. Compiled
// with the AVX-512 flags.
#include <immintrin.h>

#include <algorithm>

#include "optimized/kernels/nchwc/nchwc.hpp"

namespace onemodel::opt::nchwc {
namespace {

// Positions per chunk of the product (a chunk is one block's run of positions).
constexpr std::size_t kScalePositions = 1024;

__mmask16 first_lanes(std::size_t count) noexcept {
  return static_cast<__mmask16>(count >= kBlock ? 0xFFFFu : (1u << count) - 1u);
}

}  // namespace

void global_average_pool_f32__avx512(const KernelContext& context, const float* x, std::size_t batch,
                                     std::size_t channels, std::size_t plane, float* y) {
  const std::size_t blocks = blocks_of(channels);
  if (batch == 0 || blocks == 0) return;
  const double total = static_cast<double>(batch * blocks * plane);
  context.parallel_for(batch * blocks, total / 16.0, [&](std::size_t chunk) {
    const std::size_t n = chunk / blocks, b = chunk % blocks;
    const float* xb = x + (n * blocks + b) * plane * kBlock;
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    std::size_t p = 0;
    for (; p + 4 <= plane; p += 4) {
      for (std::size_t k = 0; k < 4; ++k) acc[k] = _mm512_add_ps(acc[k], _mm512_loadu_ps(xb + (p + k) * kBlock));
    }
    for (; p < plane; ++p) acc[0] = _mm512_add_ps(acc[0], _mm512_loadu_ps(xb + p * kBlock));
    const __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
    // spec/ops/pooling.md: the mean is the sum divided by the count (0 positions: 0 / 0, NaN).
    const __m512 mean = _mm512_div_ps(sum, _mm512_set1_ps(static_cast<float>(plane)));
    const std::size_t c0 = b * kBlock;
    _mm512_mask_storeu_ps(y + n * channels + c0, first_lanes(channels - c0), mean);
  });
}

void scale_f32__avx512(const KernelContext& context, const float* x, const float* s, std::size_t batch,
                       std::size_t channels, std::size_t plane, float* y) {
  const std::size_t blocks = blocks_of(channels);
  if (batch == 0 || blocks == 0 || plane == 0) return;
  const std::size_t runs = (plane + kScalePositions - 1) / kScalePositions;
  const double total = static_cast<double>(batch * blocks * plane);
  // Chunks by runs of positions, blocks innermost, as the 1x1 and depthwise kernels cut theirs.
  context.parallel_for(batch * runs * blocks, total / 16.0, [&](std::size_t chunk) {
    const std::size_t n = chunk / (runs * blocks), rest = chunk % (runs * blocks);
    const std::size_t p0 = (rest / blocks) * kScalePositions, b = rest % blocks;
    const std::size_t p1 = std::min(plane, p0 + kScalePositions);
    const std::size_t c0 = b * kBlock;
    // Lanes past the channels multiply by +0 (the masked load), so padding lanes stay finite.
    const __m512 factor = _mm512_maskz_loadu_ps(first_lanes(channels - c0), s + n * channels + c0);
    const std::size_t at = (n * blocks + b) * plane * kBlock;
    for (std::size_t p = p0; p < p1; ++p) {
      _mm512_storeu_ps(y + at + p * kBlock, _mm512_mul_ps(_mm512_loadu_ps(x + at + p * kBlock), factor));
    }
  });
}

}  // namespace onemodel::opt::nchwc
