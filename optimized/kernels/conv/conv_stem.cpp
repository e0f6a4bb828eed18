// Which convolutions take the direct stem kernel, and its weight layout (conv_stem.hpp).
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_columns.hpp"

#include <cstdlib>
#include <string_view>

namespace onemodel::opt {

#if defined(__x86_64__)
namespace {

// Grouped, not depthwise: each group is a convolution of its own channels, run as one by the
// kernel (its chunks are (image, group, rows)). With im2col + the product, a group of 16 filters
// is a 12-row and a 4-row strip of A, and each im2col strip, built for the group alone, is read by
// those 16 rows only: filling it took 28% of ResNeXt-50's 512 -> 512 layer at 14 x 14. Measured
// (session 31, AMD EPYC Zen 4, one thread, one-node Conv + Relu models, us per call, product /
// kernel, 3x3 pad 1 unless said): fast mode, 16 filters a group: 512 -> 512 in 32 groups at 14
// 432 / 390, at 28 1639 / 1427; 256 -> 256 in 16 groups at 56 3276 / 2827, at 56 stride 2 1148 /
// 796; 32 filters: 1024 -> 1024 in 32 groups at 14 1316 / 1229, at 28 5699 / 4941; 64 filters:
// 2048 -> 2048 at 14 5065 / 4579. Exact mode, 16 filters: at 14 490 / 399, at 56 3339 / 3127,
// stride 2 1185 / 833. Lost: rows that leave a tile part empty, 7 columns (16 filters 222 / 230
// at stride 2, 32 filters 377 / 616, 64 filters 1401 / 2327), 17 (590 / 843), 20 (16 filters 832
// / 1001, 32 filters 2603 / 3351). So: whole registers of filters (16 in exact mode, where a
// longer row of unfused accumulators loses, conv_stem_takes) and rows that fill at least 85% of their
// tiles' columns (14 of 16, 28 of 32, 56 of 64 with 16 filters; whole tiles of 14 with more).
constexpr double kGroupedMinColumnUse = 0.85;

bool grouped_takes(bool exact, const Conv2dShape& s) noexcept {
  const std::size_t filters = s.out_per_group(), channels = s.in_per_group();
  if (s.groups == s.in_channels || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) return false;
  const bool whole_registers = exact ? filters == 16 : filters == 16 || filters == 32 || filters == 64;
  if (!whole_registers || channels * s.taps() > 1152 || s.out_w == 0 || s.out_h == 0 || s.batch == 0) return false;
  const std::size_t tile = filters == 16 ? 16 : 14;  // the kernel's columns per tile (conv_stem_avx512.cpp)
  const std::size_t computed = (s.out_w + tile - 1) / tile * tile;
  if (static_cast<double>(s.out_w) < kGroupedMinColumnUse * static_cast<double>(computed)) return false;
  if (s.stride_w == 0 || s.stride_w > 8 || s.stride_h == 0 || s.dilation_w == 0 || s.dilation_h == 0) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.out_channels < kLimit && s.dilation_w < kLimit && s.dilation_h < kLimit &&
         s.kernel_w < kLimit && s.kernel_h < kLimit;
}

// The shape limits both kernels share: strides, dilations and extents far below the 32-bit range.
bool extents_fit(const Conv2dShape& s) noexcept {
  if (s.stride_w == 0 || s.stride_w > 8 || s.stride_h == 0 || s.dilation_w == 0 || s.dilation_h == 0) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.out_channels < kLimit && s.dilation_w < kLimit && s.dilation_h < kLimit &&
         s.kernel_w < kLimit && s.kernel_h < kLimit;
}

// The AVX2 kernel (conv_stem_avx2.cpp: tiles of 8 channels by 14 columns). AVX2_RULES_PENDING
bool avx2_takes(bool exact, const Conv2dShape& s) noexcept {
  (void)exact;
  if (s.out_w == 0 || s.out_h == 0 || s.batch == 0 || !extents_fit(s)) return false;
  const char* mode = std::getenv("ONEMODEL_S35_STEM");
  const std::string_view m = mode != nullptr ? mode : "";
  if (m == "off") return false;
  const std::size_t filters = s.out_per_group(), channels = s.in_per_group();
  const std::size_t k = channels * s.taps();
  const std::size_t computed = (s.out_w + 13) / 14 * 14;
  const double use = static_cast<double>(s.out_w) / static_cast<double>(computed);
  if (s.groups != 1) {
    if (s.groups == s.in_channels || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) return false;
    if (m == "all") return k <= 1152 && filters % 4 == 0 && filters <= 64;
    return (filters == 8 || filters == 16) && k <= 1152 && use >= kGroupedMinColumnUse;
  }
  if (m == "all") return k <= 1152 && s.out_w >= 8 && s.taps() > 1;
  return s.in_channels <= 4 && k <= 256 && s.out_w >= 8;
}

}  // namespace
#endif

bool conv_stem_takes(Isa isa, bool exact, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (s.groups == 0 || s.in_channels == 0 || s.out_channels == 0) return false;
  if (isa == Isa::Avx2) return avx2_takes(exact, s);
  if (isa != Isa::Avx512) return false;
  if (s.groups != 1) return grouped_takes(exact, s);
  const std::size_t k = s.in_channels * s.taps();
  // A network's first layer: few input channels, a short K.
  const bool stem = s.in_channels <= 4 && k <= 256;
  // Few output channels over wide rows, unstrided (measured in session 20 against im2col + the
  // product on this path, one thread, Intel Xeon): the product's A then has one or a few strips
  // of filters, so each im2col strip it fills is read by few of them, and the tiles of 14 columns
  // lose little at the row ends (ratios measured with tiles of 12; those of 14 took a further
  // 0.89-0.96x on 128 -> 32 and 64 -> 64 at 56 x 56). 16 -> 16 3x3 on 112 x 112 0.81x, 32 -> 32 on 56 x 56 0.91x,
  // DenseNet's 128 -> 32 on 56 x 56 0.95x, 64 -> 64 on 56 x 56 0.97x; but 128 -> 32 on 28 x 28
  // 1.15x (tiles of 12 then; see below), 64 -> 192 on 56 x 56 1.09x, 256 -> 256 on 14 x 14 3.3x
  // (the tiles re-read 2.4 MB of weights), so those stay with the product.
  // Which filter counts (session 29, AMD EPYC Zen 4, one thread, us per call, product against
  // this kernel, same bits): in fast mode the kernel wins with whole registers of filters, 16 ->
  // 16 at 112 709 -> 599, 32 -> 16 at 112 1582 -> 1257, 32 -> 32 at 56 642 -> 576, 64 -> 64 at
  // 56 2309 -> 2160, 128 -> 32 at 56 2417 -> 2207 (ties at 64 filters from 32 or 128 channels),
  // and loses with a part-filled block: 8 filters 289 -> 318, 24 at 56 382 -> 429, 40 970 -> 1375,
  // 48 1365 -> 1668, 64 -> 48 1801 -> 2121. In exact mode its separate multiply and add run on
  // the 14 or 16 accumulators of one row, whose add latency the product's 24 accumulators hide:
  // it wins only with 16 filters (16 -> 16 at 112 892 -> 599, 64 -> 16 at 56 772 -> 646) and
  // loses from 24 up (32 -> 32 at 112 2930 -> 3653, 64 -> 32 at 56 1349 -> 1605, 64 -> 64 at
  // 56 2729 -> 3119, 128 -> 32 2656 -> 3588, 24 -> 24 at 112 1563 -> 2390).
  const bool whole_registers = exact ? s.out_channels == 16 : s.out_channels == 16 || s.out_channels % 32 == 0;
  // Rows under 48 columns, 32 or 64 filters (tiles of 14 columns; so fast mode only, exact mode
  // takes 16 filters alone): only rows of whole tiles, where no column is computed and dropped.
  // Session 29, Zen 4, us, product / kernel: 28 wide 128 -> 32 583-588 / 544-546 (DenseNet's second
  // block), 64 -> 64 549-560 / 530-534, 16 -> 32 76-79 / 73-74; 42 wide 128 -> 32 1321-1334 /
  // 1212-1227; but 14 wide (one tile) 153 / 152-155, and rows ending in a part tile lose: 20 wide
  // 280 / 377-381, 24 403-420 / 455-457, 32 733-735 / 913-917, 40 1116-1127 / 1141.
  const bool whole_tiles = s.out_channels > 16 && s.out_w >= 28 && s.out_w % 14 == 0;
  const bool few_wide = s.taps() > 1 && s.out_channels <= 64 && whole_registers && (s.out_w >= 48 || whole_tiles) &&
                        k <= 1152 && s.stride_w == 1 && s.stride_h == 1 && s.dilation_w == 1 && s.dilation_h == 1;
  if (k == 0 || !(stem || few_wide) || s.out_w < 8 || s.out_h == 0 || s.batch == 0) return false;
  if (s.stride_w == 0 || s.stride_w > 8 || s.stride_h == 0 || s.dilation_w == 0 || s.dilation_h == 0) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.out_channels < kLimit && s.dilation_w < kLimit && s.dilation_h < kLimit &&
         s.kernel_w < kLimit && s.kernel_h < kLimit;
#else
  (void)isa;
  (void)exact;
  (void)s;
  return false;
#endif
}

// Measured on this path (session 27, AMD EPYC Zen 4, one thread, conv_stem_f32__avx512 against
// the columns kernel, us per call): 3 -> 64 3x3/2 at 224 fast 632 -> 581, exact 857 -> 712;
// 3 -> 32 3x3/2 337 -> 304 and 441 -> 369; 3 -> 24 314 -> 233 and 413 -> 286; 3 -> 64 7x7/2 2344
// -> 2288 and 3336 -> 3286. But 3 -> 16 3x3/2 156 -> 165 and 168 -> 202 (two channel blocks of
// eight against one register of sixteen), and the wide unstrided layers with many input channels
// (64 -> 64 3x3 at 56: 2099 -> 2374; 16 -> 64 at 55: 560 -> 619), where the transposes weigh
// little against K, stay with the channels-in-lanes kernel.
bool conv_stem_columns_takes(const Conv2dShape& s) noexcept {
  return s.groups == 1 && s.in_channels <= 4 && s.out_channels > 16 &&
         (s.kernel_w == 3 || s.kernel_w == 5 || s.kernel_w == 7) &&
         (s.stride_w == 1 || s.stride_w == 2) && s.dilation_w == 1;
}

std::size_t conv_stem_padded_channels(Isa isa, std::size_t out_channels) noexcept {
  // The AVX2 kernel's tiles are one register of 8 channels (conv_stem_avx2.cpp).
  if (isa != Isa::Avx512) return (out_channels + 7) / 8 * 8;
  return out_channels <= 16 ? 16 : (out_channels + 31) / 32 * 32;
}

std::vector<float> conv_stem_pack_weights(Isa isa, const Conv2dShape& s, const float* w) {
  const std::size_t k = s.in_per_group() * s.taps();
  const std::size_t filters = s.out_per_group();
  const std::size_t padded = conv_stem_padded_channels(isa, filters);
  std::vector<float> packed(s.groups * k * padded, 0.0f);
  for (std::size_t g = 0; g < s.groups; ++g) {
    float* group = packed.data() + g * k * padded;
    for (std::size_t oc = 0; oc < filters; ++oc) {
      for (std::size_t p = 0; p < k; ++p) group[p * padded + oc] = w[(g * filters + oc) * k + p];
    }
  }
  return packed;
}

}  // namespace onemodel::opt
