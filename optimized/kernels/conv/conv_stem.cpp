// Which convolutions take the direct stem kernel, and its weight layout (conv_stem.hpp).
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_columns.hpp"

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

// The AVX2 kernel's limits, as conv_stem_takes states the AVX-512 one's: strides at most 8, no
// zero stride or dilation, extents far below the 32-bit range.
bool extents_fit(const Conv2dShape& s) noexcept {
  if (s.stride_w == 0 || s.stride_w > 8 || s.stride_h == 0 || s.dilation_w == 0 || s.dilation_h == 0) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.out_channels < kLimit && s.dilation_w < kLimit && s.dilation_h < kLimit &&
         s.kernel_w < kLimit && s.kernel_h < kLimit;
}

// The AVX2 kernel (conv_stem_avx2.cpp: tiles of 8 channels by 14 columns, or by two rows of 7 on
// maps at most 7 wide, one multiply-add per broadcast). Measured (session 35, AMD EPYC Zen 3, 2 vCPUs shared with other builds, one thread
// pinned, one-node Conv + Relu models, `onemodel profile` node median, the minimum of 3 to 5
// alternated rounds against the im2col path of the same build, us, product / kernel, fast then
// exact):
// - grouped, 8 filters a group (RegNet-Y-400MF, ResNeXt's second stage): 208 in 26 groups at 14
//   252 / 139, 299 / 260; 104 in 13 at 28 428 / 239, 443 / 250; 256 in 32 at 28 1090 / 589,
//   1081 / 616; strided 48 in 6 at 112 1818 / 445, 1830 / 480; 256 in 32 at 56/2 2676 / 603,
//   2719 / 657; rows of 7 440 in 55 174 / 138, 194 / 145 (181 / 123, 214 / 138 with two-row
//   tiles). 4 filters (ResNeXt's
//   first stage, half a register): 128 in 32 at 56 2493 / 1105, 2201 / 1243; 64 in 16 at 7 33 /
//   22, 34 / 26. So groups of 4 or 8 filters at every width.
// - 16 filters: 512 in 32 at 14 638 / 523, 722 / 562; strided 512 at 28/2 1694 / 598, 1777 /
//   644, 256 in 16 at 14/2 (7 columns) 294 / 192, 290 / 177. 32 filters: 1024 in 32 at 14 5138
//   / 3027, 3843 / 2274; at 14/2 1453 / 1166, 2538 / 2156 (1420 / 821, 1568 / 918 with the
//   two-row tiles). Unstrided rows of 7 lost with one-row tiles (256 in 16 at 7 113 / 128, 125 /
//   142; ResNeXt's last stage, 1024 in 32 at 7, 630 / 986, 798 / 1047) and win with tiles of two
//   rows of 7 (116 / 98, 134 / 105; 644 / 612, 752 / 687; callgrind, the Conv node's instructions,
//   1.30 M / 1.03 M, 1.76 M / 1.30 M; 8.13 M / 7.12 M, 11.55 M / 9.23 M). So 16 or 32 filters
//   when strided or when the rows fill 85% of their tiles (14 columns, or 7 on maps at most 7
//   wide); rows of 20 (71%) stay with the product. 24 and 64 filters lost in fast mode (384 in 16
//   at 14 638 / 785; 1024 in 16 at 14 3386 / 6396): left to the product.
// - stems (at most 4 input channels, K <= 256): 3 -> 64 7x7/2 at 224 4813 / 3511, 5113 / 4158;
//   3 -> 32 3x3/2 751 / 485, 899 / 543; 3 -> 16 610 / 257, 639 / 285; 3 -> 24 606 / 368, 714 /
//   409; 3 -> 64 1031 / 966, 1260 / 1078; 4 -> 32 1606 / 939, 1106 / 679; 3 -> 16 3x3 at 56
//   97 / 66, 102 / 74. One input channel (op_conv.cpp's single_input_stem, against the depthwise
//   kernel): 1 -> 64 7x7/2 2294 / 1351, 2237 / 1521; 1 -> 16 3x3/2 244 / 155, 421 / 173; but
//   unstrided 1 -> 32 3x3 at 112 loses (223 / 302, 282 / 338): one input channel only strided.
// - few output channels, unstrided (one group, more than 4 input channels): 8 -> 8 3x3 at 112
//   511 / 249, 512 / 276; 16 -> 8 at 56 243 / 145, 230 / 130; in exact mode 16 -> 16 at 112 1127
//   / 992, at 28 109 / 91, at 14 30 / 25; 32 -> 16 at 56 671 / 531; 32 -> 24 1211 / 1063; but 32
//   -> 32 906 / 999, 64 -> 16 1397 / 1569, 128 -> 32 3446 / 4063, 64 -> 64 2961 / 4140, and in
//   fast mode 16 filters (16 -> 16 at 28 96 / 105, 32 -> 16 456 / 485; fast 3x3 layers with
//   enough channels are Winograd's anyway). So K <= 288 and 8 filters, or 24 at most in exact mode.
bool avx2_takes(bool exact, const Conv2dShape& s) noexcept {
  if (s.out_w == 0 || s.out_h == 0 || s.batch == 0 || !extents_fit(s)) return false;
  const std::size_t filters = s.out_per_group(), channels = s.in_per_group();
  const std::size_t k = channels * s.taps();
  const bool strided = s.stride_w > 1 || s.stride_h > 1;
  if (s.groups != 1) {
    if (s.groups == s.in_channels || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) return false;
    if (k > 1152) return false;
    if (filters == 4 || filters == 8) return true;
    if (filters != 16 && filters != 32) return false;
    // The kernel's tiles: 14 columns, or two rows of 7 on maps at most 7 wide.
    const std::size_t computed = s.out_w <= 7 ? 7 : (s.out_w + 13) / 14 * 14;
    return strided || static_cast<double>(s.out_w) >= kGroupedMinColumnUse * static_cast<double>(computed);
  }
  if (s.in_channels <= 4 && k <= 256) return s.in_channels > 1 || strided;
  const bool unit = !strided && s.dilation_w == 1 && s.dilation_h == 1;
  return unit && s.taps() > 1 && k <= 288 && (s.out_channels <= 8 || (exact && s.out_channels <= 24));
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
      for (std::size_t p = 0; p < k; ++p) {
        // AVX2: blocks of 8 channels, each K rows of 8, so a tile's weights are contiguous. In
        // rows of all the group's channels, 32 filters and K = 288 (ResNeXt's last stage) spread
        // a tile's 9 KB over 18 KB of cache lines beside its input block; blocked, that layer at
        // 7 x 7 took 638 -> 472 us, the strided one at 14 -> 7 568 -> 512 (fast, one thread,
        // Zen 3).
        const std::size_t at = isa == Isa::Avx512 ? p * padded + oc : (oc / 8 * k + p) * 8 + oc % 8;
        group[at] = w[(g * filters + oc) * k + p];
      }
    }
  }
  return packed;
}

}  // namespace onemodel::opt
