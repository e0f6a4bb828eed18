// Which convolutions fast mode runs by Winograd F(2x2, 3x3), the filter transform and the
// workspace (winograd.hpp).
#include "optimized/kernels/conv/winograd.hpp"

#include <algorithm>

namespace onemodel::opt {
namespace {

// The transformed inputs and the products of one block of tile rows: 16 x (Cin + Cout) x tiles
// floats kept under this many, so a block's operands stay near the second-level cache while its
// sixteen products read them.
constexpr std::size_t kBlockFloats = std::size_t{1} << 19;  // 2 MB

std::size_t tile_rows(const Conv2dShape& s) noexcept { return (s.out_h + 1) / 2; }
std::size_t tile_cols(const Conv2dShape& s) noexcept { return (s.out_w + 1) / 2; }

}  // namespace

bool winograd_takes(Isa isa, bool exact, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (exact || isa != Isa::Avx512) return false;
  if (s.groups != 1 || s.kernel_h != 3 || s.kernel_w != 3 || s.stride_h != 1 || s.stride_w != 1 ||
      s.dilation_h != 1 || s.dilation_w != 1) {
    return false;
  }
  if (s.batch == 0 || s.out_h == 0 || s.out_w == 0 || s.in_channels < 8 || s.out_channels < 16) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.in_channels < kLimit && s.out_channels < kLimit;
#else
  (void)isa;
  (void)exact;
  (void)s;
  return false;
#endif
}

std::vector<PackedA> winograd_pack_weights(Isa isa, const Conv2dShape& s, const float* w) {
  const std::size_t m = s.out_channels, k = s.in_channels;
  // G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1] (Lavin and Gray, "Fast Algorithms for
  // Convolutional Neural Networks", F(2, 3)); U = G g G^T per channel pair, in double.
  static constexpr double kG[4][3] = {{1.0, 0.0, 0.0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0.0, 0.0, 1.0}};
  std::vector<float> matrices(kWinogradElements * m * k);
  for (std::size_t oc = 0; oc < m; ++oc) {
    for (std::size_t ic = 0; ic < k; ++ic) {
      const float* g = w + (oc * k + ic) * 9;
      double left[4][3];  // G g
      for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
          left[i][j] = kG[i][0] * g[0 * 3 + j] + kG[i][1] * g[1 * 3 + j] + kG[i][2] * g[2 * 3 + j];
        }
      }
      for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < 4; ++j) {
          const double u = left[i][0] * kG[j][0] + left[i][1] * kG[j][1] + left[i][2] * kG[j][2];
          matrices[(i * 4 + j) * m * k + oc * k + ic] = static_cast<float>(u);
        }
      }
    }
  }
  std::vector<PackedA> packed;
  packed.reserve(kWinogradElements);
  for (std::size_t e = 0; e < kWinogradElements; ++e) {
    packed.push_back(pack_a_f32(isa, m, k, MatrixView{matrices.data() + e * m * k, static_cast<std::ptrdiff_t>(k), 1}));
  }
  return packed;
}

std::size_t winograd_block_tile_rows(const Conv2dShape& s) noexcept {
  const std::size_t per_row = kWinogradElements * (s.in_channels + s.out_channels) * tile_cols(s);
  const std::size_t rows = per_row == 0 ? 1 : kBlockFloats / per_row;
  return std::clamp<std::size_t>(rows, 1, std::max<std::size_t>(tile_rows(s), 1));
}

std::size_t winograd_workspace_floats(const Conv2dShape& s) noexcept {
  return kWinogradElements * (s.in_channels + s.out_channels) * tile_cols(s) * winograd_block_tile_rows(s);
}

}  // namespace onemodel::opt
