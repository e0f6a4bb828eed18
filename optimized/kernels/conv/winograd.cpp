// Which convolutions fast mode runs by Winograd F(2x2, 3x3), the filter transform and the
// workspace (winograd.hpp).
#include "optimized/kernels/conv/winograd.hpp"

#include <algorithm>
#include <bit>

#include "optimized/kernels/conv/conv_stem.hpp"

namespace onemodel::opt {
namespace {

// One block's transformed inputs and products, 16 x (Cin + Cout) x tiles floats, kept under this
// many. Measured (session 32, Zen 4, one thread, us per call, blocks of 2^17 / 2^19 / 2^21
// floats): 64 -> 64 at 56 1297 / 1204 / 1199, 128 -> 32 at 56 1688 / 1324 / 1242, 128 -> 128 at 28
// 1278 / 1141 / 1092, 256 -> 256 at 14 1349 / 1140 / 1100, 64 -> 64 at 112 5972 / 5373 / 5508,
// 32 -> 32 at 112 1549 / 1474 / 1558: longer products (fewer passes over the transformed filters)
// outweigh the second-level cache.
constexpr std::size_t kBlockFloats = std::size_t{1} << 20;  // 4 MB
// Those layers ran alone, their workspace hot. Inside a model the workspace comes back from beyond
// L2 for each layer, and the first Winograd layer of a run finds it in memory; where the
// transformed filters are small, passing over them once per block costs less than a workspace
// beyond L2. So filters of at most kSmallFilterFloats (512 KB) take blocks of kSmallBlockFloats
// (1 MB), which stay in L2 from block to block; per block the filters are read once more, at most
// half as many floats as the workspace holds (16 Cin Cout <= kSmallBlockFloats / 2). Session 43,
// Intel Xeon (model 167), ResNet-50 at batch 1, one thread, per node (onemodel profile, lowest of
// three alternated medians, us; blocks of 2^20 / 2^18 / 2^19 floats): 64 -> 64 at 56 x 56 (the
// first Winograd layer of the run, then the next two) 1553 / 971 / 1112, 1195 / 969 / 1052, 1173 /
// 917 / 1051; 128 -> 128 at 28 x 28 (1 MB of filters) 886 / 1096 / 979; 256 -> 256 at 14 x 14
// (4 MB) 1083 / 1528 / 1078.
constexpr std::size_t kSmallFilterFloats = std::size_t{1} << 17;
constexpr std::size_t kSmallBlockFloats = std::size_t{1} << 18;
// A block run by one thread alone should hold at least this many tiles (product columns);
// narrower products lose more than the second thread gains.
constexpr std::size_t kParallelBlockMinTiles = 64;
constexpr std::size_t kMaxParallelBlockThreads = 64;  // the workspace slots' mask

#if defined(__x86_64__)
// Which layers (session 32, AMD EPYC Zen 4, one-node Conv + Relu models, us per call, one thread,
// im2col + the product or the direct kernel / Winograd; two threads in brackets): 8 -> 16 at 112
// 333 / 312 (two threads about equal), 16 -> 16 at 112 594 / 466, 16 -> 64 at 55 589 / 410, 32 ->
// 32 at 112 2292 / 1472, 64 -> 64 at 56 2144 / 1180 (1124 / 826), 128 -> 128 at 28 2139 / 1104,
// 256 -> 256 at 14 2173 / 1048 (1587 / 594-863), 512 -> 512 at 7 2107 / 1455 (1178 / 748), 128 ->
// 32 at 56 2224 / 1244, at 28 547 / 328, at 14 156 / 98; small layers: 32 -> 32 at 14 (49 tiles)
// 43 / 30, 16 -> 16 at 28 47 / 36, 128 -> 128 at 7 138 / 118, but 128 -> 32 at 7 (16 tiles,
// 1.8 M multiply-adds) 42 / 44 and 64 -> 64 at 7 40 / 38.
//
// Those were layers alone, whose weights stay in cache from one call to the next. Inside a model
// they do not: each layer's transformed filters (16 x Cin x Cout floats, 16/9 of the filters) come
// from the outer caches or memory once per image, and a map of fewer than kMinTiles tiles uses
// each of them too few times to hide that. Session 40 (Intel Xeon, family 6 model 167, one
// thread, `onemodel profile` medians in the model, Winograd / the product): ResNet-18's three
// 512 -> 512 layers at 7 (16 tiles) 2081-2330 / 1385-1498 us, the row 19.5 -> 17.4 ms
// (ab_rows.py, three rounds); GoogLeNet's 160 -> 320 and 192 -> 384 at 7 401-474 / 281-292 and
// 525-653 / 395-408, even 48 -> 128 at 7 (0.4 MB of transformed filters) 62-68 / 51-52. So a map
// of fewer than kMinTiles tiles keeps the product whatever its size (until then, layers of 2^21
// multiply-adds or more took Winograd at any map size).
constexpr std::size_t kMinInputChannels = 8;
constexpr std::size_t kDirectInputChannels = 32;  // below, over rows of kDirectMinColumns: the direct kernel
constexpr std::size_t kDirectMinColumns = 48;
constexpr std::size_t kMinOutputChannels = 16;
constexpr std::size_t kMinTiles = 32;
constexpr std::size_t kMaxTileRowFloats = std::size_t{1} << 22;  // 16 MB
#endif


// One tile row's transformed inputs and products: 16 x (Cin + Cout) floats a tile.
std::size_t tile_row_floats(const Conv2dShape& s) noexcept {
  return kWinogradElements * (s.in_channels + s.out_channels) * winograd_tile_cols(s);
}

// The tile rows of a block run by one thread: as many as `budget` floats hold, at least one.
std::size_t rows_per_block(const Conv2dShape& s, std::size_t budget) noexcept {
  const std::size_t per_row = tile_row_floats(s);
  return std::clamp<std::size_t>(per_row == 0 ? 1 : budget / per_row, 1,
                                 std::max<std::size_t>(winograd_tile_rows(s), 1));
}

// The workspace budget of one block (kSmallFilterFloats above). Called only for shapes
// winograd_takes accepted (channel counts below 2^24), so the product does not overflow.
std::size_t block_budget(const Conv2dShape& s) noexcept {
  return kWinogradElements * s.in_channels * s.out_channels <= kSmallFilterFloats ? kSmallBlockFloats : kBlockFloats;
}

}  // namespace

bool winograd_takes([[maybe_unused]] Isa isa, [[maybe_unused]] bool exact,
                    [[maybe_unused]] const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (exact || (isa != Isa::Avx512 && isa != Isa::Avx2)) return false;
  if (s.groups != 1 || s.kernel_h != 3 || s.kernel_w != 3 || s.stride_h != 1 || s.stride_w != 1 ||
      s.dilation_h != 1 || s.dilation_w != 1) {
    return false;
  }
  if (s.batch == 0 || s.out_h == 0 || s.out_w == 0 || s.in_channels < kMinInputChannels ||
      s.out_channels < kMinOutputChannels) {
    return false;
  }
  // One tile row's transformed inputs and products, the smallest block: bounded, so that a very
  // wide map (a long signal as a 3x3 layer) cannot make the workspace, which no run's memory limit
  // counts, four times its input and output; such a layer keeps the product, which needs none.
  if (tile_row_floats(s) > kMaxTileRowFloats) return false;
  // Small maps and wide layers, one test: a block's tiles are at most the map's. Small maps:
  // sixteen products of few columns, the transforms' passes and the transformed filters' reads
  // cost more than the multiply-adds they save unless the map has a few tile columns' worth of
  // tiles (kMinTiles above). Wide layers: a block holds as many tile rows as kBlockFloats allows
  // (winograd_blocks), and each block reads all the transformed filters (16 x Cin x Cout floats)
  // for its tiles. Where Cin + Cout passes about 2048 a block holds fewer than kMinTiles tiles, and
  // the filters stream
  // from memory once per few columns of product: FCN-ResNet50's 2048 -> 512 head at 16 x 16 (three
  // blocks of 24 tiles, 67 MB of transformed filters each time) took 35.5 ms in the model against
  // ONNX Runtime's 26.6 (session 40, Intel Xeon model 167, one thread). The one-thread block
  // decides, so the choice depends on the shape alone.
  if (rows_per_block(s, kBlockFloats) * winograd_tile_cols(s) < kMinTiles) return false;
  // Few input channels over rows of at least kDirectMinColumns where the direct kernel serves the
  // layer (conv_stem_takes: wide rows, few filters): the products are short (K = Cin), and a tile's
  // transformed inputs and products, 16 x (Cin + Cout) floats written and read back, cost more than
  // the multiply-adds saved. Inside the model, where those passes go beyond L2, SqueezeNet's 16 ->
  // 64 3x3 at 55 x 55 took 466 us with Winograd against 364 with the direct kernel at batch 1, 4994
  // against 3449 at batch 8 (session 42, Intel Xeon model 167, one thread, onemodel profile,
  // minimum of three alternated medians); alone, weights and workspace hot, Winograd had won on Zen
  // 4 (589 / 410 us above). Narrower rows keep Winograd: GoogLeNet's 16 -> 32 at 28 x 28 took 64 /
  // 60 us on the direct kernel at batch 1 but 415 / 460 at batch 8, its 24 -> 64 at 14 x 14 45 / 50.
  if (s.in_channels < kDirectInputChannels && s.out_w >= kDirectMinColumns && conv_stem_takes(isa, exact, s)) {
    return false;
  }
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.map_extents_below(kLimit) && s.in_channels < kLimit && s.out_channels < kLimit;
#else
  return false;  // the kernel is x86-64's
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

std::size_t winograd_element_stride(std::size_t floats) noexcept {
  constexpr std::size_t kLine = 16;  // floats in 64 bytes
  const std::size_t lines = (floats + kLine - 1) / kLine;
  return (lines % 2 == 0 ? lines + 1 : lines) * kLine;
}

WinogradBlocks winograd_blocks(const Conv2dShape& s, std::size_t threads) noexcept {
  WinogradBlocks b;
  const std::size_t rows_total = std::max<std::size_t>(winograd_tile_rows(s), 1), cols = winograd_tile_cols(s);
  b.rows = rows_per_block(s, block_budget(s));
  b.count = (rows_total + b.rows - 1) / b.rows;
  if (threads >= 2 && threads <= kMaxParallelBlockThreads) {
    if (s.batch * b.count >= threads) {
      b.parallel = true;
    } else {
      // Fewer blocks than threads: as many equal blocks as threads, if each keeps enough tiles.
      const std::size_t rows = (rows_total + threads - 1) / threads;
      if (rows * cols >= kParallelBlockMinTiles) {
        b.rows = rows;
        b.count = (rows_total + rows - 1) / rows;
        b.parallel = true;
      }
    }
    if (b.parallel && s.batch == 1 && b.count % threads != 0) {
      // Whole rounds of blocks: a last round with one block would leave the other threads idle.
      const std::size_t count = (b.count + threads - 1) / threads * threads;
      const std::size_t rows = (rows_total + count - 1) / count;
      if (rows * cols >= kParallelBlockMinTiles) {
        b.rows = rows;
        b.count = (rows_total + rows - 1) / rows;
      }
    }
  }
  const std::size_t tiles = b.rows * cols;
  b.floats = kWinogradElements *
             (winograd_element_stride(s.in_channels * tiles) + winograd_element_stride(s.out_channels * tiles));
  b.workspace = b.parallel ? threads * b.floats : b.floats;
  return b;
}

WinogradSlots::WinogradSlots(std::size_t count) noexcept
    : used_(count >= 64 ? std::uint64_t{0} : ~((std::uint64_t{1} << count) - 1)) {}

std::size_t WinogradSlots::take() noexcept {
  thread_local std::size_t last = 0;
  std::uint64_t used = used_.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t free = ~used;
    std::uint64_t bit = last < 64 && ((free >> last) & 1u) != 0 ? std::uint64_t{1} << last : free & (~free + 1);
    if (bit == 0) {
      used = used_.load(std::memory_order_relaxed);
      continue;
    }
    if (used_.compare_exchange_weak(used, used | bit, std::memory_order_acquire, std::memory_order_relaxed)) {
      last = static_cast<std::size_t>(std::countr_zero(bit));
      return last;
    }
  }
}

void WinogradSlots::give(std::size_t slot) noexcept {
  used_.fetch_and(~(std::uint64_t{1} << slot), std::memory_order_release);
}

#if defined(__x86_64__)
bool winograd_conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x,
                         const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                         const ConvActivation* activation) {
  if (context.isa == Isa::Avx512) {
    return winograd_conv2d_f32__avx512(context, shape, x, packed, bias, y, workspace, activation);
  }
  return winograd_conv2d_f32__avx2(context, shape, x, packed, bias, y, workspace, activation);
}
#endif

}  // namespace onemodel::opt
