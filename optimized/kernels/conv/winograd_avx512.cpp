// Winograd F(2x2, 3x3) on the AVX-512 path (winograd.hpp): per image and block of tile rows, the
// input transform (sixteen tiles of one channel's tile row a vector), the sixteen products on
// the packed transformed filters, then the output transform with the bias, and the activation on
// the finished rows.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>

#include "optimized/kernels/conv/winograd.hpp"
#include "optimized/kernels/gemm/gemm_buffer.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kTilesPerVector = 16;
// Rough costs for the pool's decision to wake a second thread (kernels-gemm.md "Fixed chunks"):
// nanoseconds per tile and channel of a transform; the products' is the product's own estimate.
constexpr double kTransformNsPerTile = 1.0;
using gemm::kMultiplyAddsPerNs;
constexpr std::size_t kChannelsPerChunk = 4;

// Lanes 0-15 of (lo, hi)'s 32 floats at even or odd positions.
inline __m512 even_lanes(__m512 lo, __m512 hi) noexcept {
  const __m512i index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(lo, index, hi);
}
inline __m512 odd_lanes(__m512 lo, __m512 hi) noexcept {
  const __m512i index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_permutex2var_ps(lo, index, hi);
}

// Where one block's operands sit in the workspace: V[e][c][t] (Cin x tiles per element, each
// element's matrix input_stride floats after the last) then M[e][o][t] likewise (Cout x tiles),
// t = (tile row - first) * tile_cols + tile column.
struct Block {
  std::size_t first_row = 0, rows = 0;  // tile rows
  std::size_t tiles = 0;                // rows * tile_cols
  float* inputs = nullptr;
  float* products = nullptr;
  std::size_t input_stride = 0, product_stride = 0;  // between elements (winograd_element_stride)
};

struct Geometry {
  const Conv2dShape* s;
  std::size_t tile_cols;

  // B^T d B for sixteen tiles from column tile `tx0` of tile row `ty` of channel plane `x_c`,
  // stored at out + e * stride + t for element e (lanes past the row's last tile not stored).
  void transform_inputs(const float* x_c, std::size_t ty, std::size_t tx0, float* out, std::size_t stride) const {
    const std::ptrdiff_t width = static_cast<std::ptrdiff_t>(s->in_w);
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0) - static_cast<std::ptrdiff_t>(s->pad_left);
    // d0..d3 of each tile in a row: columns col + 2t + {0, 1, 2, 3}.
    const __mmask16 m0 = row_lanes::between(-col, width - col), m1 = row_lanes::between(-col - 16, width - col - 16);
    const __mmask16 m2 = row_lanes::between(-col - 2, width - col - 2);
    const __mmask16 m3 = row_lanes::between(-col - 18, width - col - 18);
    __m512 h[4][4];
    for (std::size_t r = 0; r < 4; ++r) {
      const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(2 * ty + r) - static_cast<std::ptrdiff_t>(s->pad_top);
      if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(s->in_h)) {
        for (std::size_t j = 0; j < 4; ++j) h[r][j] = _mm512_setzero_ps();
        continue;
      }
      const float* row = x_c + iy * width;
      const __m512 a = row_lanes::load_or_zero(row, col, m0), b = row_lanes::load_or_zero(row, col + 16, m1);
      const __m512 c = row_lanes::load_or_zero(row, col + 2, m2), d = row_lanes::load_or_zero(row, col + 18, m3);
      const __m512 d0 = even_lanes(a, b), d1 = odd_lanes(a, b), d2 = even_lanes(c, d), d3 = odd_lanes(c, d);
      // B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] along the row.
      h[r][0] = _mm512_sub_ps(d0, d2);
      h[r][1] = _mm512_add_ps(d1, d2);
      h[r][2] = _mm512_sub_ps(d2, d1);
      h[r][3] = _mm512_sub_ps(d1, d3);
    }
    const __mmask16 store = row_lanes::between(0, static_cast<std::ptrdiff_t>(tile_cols - tx0));
    for (std::size_t j = 0; j < 4; ++j) {
      // The same down the columns.
      _mm512_mask_storeu_ps(out + (0 * 4 + j) * stride, store, _mm512_sub_ps(h[0][j], h[2][j]));
      _mm512_mask_storeu_ps(out + (1 * 4 + j) * stride, store, _mm512_add_ps(h[1][j], h[2][j]));
      _mm512_mask_storeu_ps(out + (2 * 4 + j) * stride, store, _mm512_sub_ps(h[2][j], h[1][j]));
      _mm512_mask_storeu_ps(out + (3 * 4 + j) * stride, store, _mm512_sub_ps(h[1][j], h[3][j]));
    }
  }

  // A^T m A (+ bias) for sixteen tiles from column tile `tx0` of tile row `ty`, products at
  // m + e * stride + t; writes output rows 2 ty and 2 ty + 1 (where inside) of plane y_o.
  // Returns the lanes holding a NaN (before any activation).
  __mmask16 transform_outputs(const float* m, std::size_t stride, __m512 bias, std::size_t ty, std::size_t tx0,
                              float* y_o) const {
    // Lanes past the tile row read nothing: the block's last products end the workspace.
    const __mmask16 tiles = row_lanes::between(0, static_cast<std::ptrdiff_t>(tile_cols - tx0));
    __m512 s0[4], s1[4];
    for (std::size_t i = 0; i < 4; ++i) {
      // A^T = [1 1 1 0; 0 1 -1 -1] along the row.
      const __m512 a = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 0) * stride);
      const __m512 b = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 1) * stride);
      const __m512 c = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 2) * stride);
      const __m512 d = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 3) * stride);
      s0[i] = _mm512_add_ps(_mm512_add_ps(a, b), c);
      s1[i] = _mm512_sub_ps(_mm512_sub_ps(b, c), d);
    }
    const __m512 y00 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0[0], s0[1]), s0[2]), bias);
    const __m512 y01 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s1[0], s1[1]), s1[2]), bias);
    const __m512 y10 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s0[1], s0[2]), s0[3]), bias);
    const __m512 y11 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s1[1], s1[2]), s1[3]), bias);
    const __mmask16 nan = _mm512_cmp_ps_mask(y00, y01, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(y10, y11, _CMP_UNORD_Q);
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0), width = static_cast<std::ptrdiff_t>(s->out_w);
    const __mmask16 lo = row_lanes::between(0, width - col), hi = row_lanes::between(0, width - col - 16);
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    float* row = y_o + 2 * ty * s->out_w + static_cast<std::size_t>(col);
    _mm512_mask_storeu_ps(row, lo, _mm512_permutex2var_ps(y00, first, y01));
    if (hi != 0) _mm512_mask_storeu_ps(row + 16, hi, _mm512_permutex2var_ps(y00, second, y01));
    if (2 * ty + 1 >= s->out_h) return nan;
    row += s->out_w;
    _mm512_mask_storeu_ps(row, lo, _mm512_permutex2var_ps(y10, first, y11));
    if (hi != 0) _mm512_mask_storeu_ps(row + 16, hi, _mm512_permutex2var_ps(y10, second, y11));
    return nan;
  }
};

// One image's blocks: the three steps over ranges of channels or elements, so that a block can be
// run by one thread whole (blocks in parallel) or by all threads step by step.
struct ImageRun {
  const Conv2dShape& s;
  const Geometry& geometry;
  const std::vector<PackedA>& packed;
  const float* x_image;
  float* y;  // the whole output
  std::size_t image;
  const float* bias;
  const ConvActivation* activation;
  std::atomic<bool>& finite;

  Block block(std::size_t first, std::size_t rows, float* workspace) const {
    Block b;
    b.first_row = first;
    b.rows = std::min(rows, winograd_tile_rows(s) - first);
    b.tiles = b.rows * geometry.tile_cols;
    b.input_stride = winograd_element_stride(s.in_channels * b.tiles);
    b.product_stride = winograd_element_stride(s.out_channels * b.tiles);
    b.inputs = workspace;
    b.products = workspace + kWinogradElements * b.input_stride;
    return b;
  }

  void inputs(const Block& b, std::size_t c_begin, std::size_t c_end) const {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      for (std::size_t r = 0; r < b.rows; ++r) {
        for (std::size_t tx = 0; tx < geometry.tile_cols; tx += kTilesPerVector) {
          float* out = b.inputs + c * b.tiles + r * geometry.tile_cols + tx;
          geometry.transform_inputs(x_image + c * s.in_plane(), b.first_row + r, tx, out, b.input_stride);
        }
      }
    }
  }

  void products(const KernelContext& alone, const Block& b, std::size_t e_begin, std::size_t e_end) const {
    for (std::size_t e = e_begin; e < e_end; ++e) {
      const MatrixView v{b.inputs + e * b.input_stride, static_cast<std::ptrdiff_t>(b.tiles), 1};
      gemm_f32_packed_a(alone, s.out_channels, b.tiles, s.in_channels, packed[e], v, b.products + e * b.product_stride,
                        static_cast<std::ptrdiff_t>(b.tiles));
    }
  }

  void outputs(const Block& b, std::size_t o_begin, std::size_t o_end) const {
    for (std::size_t o = o_begin; o < o_end; ++o) {
      // Without a bias, -0 leaves every sum as it is (-0 + -0 is -0).
      const __m512 add = _mm512_set1_ps(bias != nullptr ? bias[o] : -0.0f);
      const std::size_t plane_at = (image * s.out_channels + o) * s.out_plane();
      __mmask16 nan = 0;
      for (std::size_t r = 0; r < b.rows; ++r) {
        for (std::size_t tx = 0; tx < geometry.tile_cols; tx += kTilesPerVector) {
          const float* m = b.products + o * b.tiles + r * geometry.tile_cols + tx;
          nan |= geometry.transform_outputs(m, b.product_stride, add, b.first_row + r, tx, y + plane_at);
        }
      }
      if (nan != 0) finite.store(false, std::memory_order_relaxed);
      if (activation == nullptr) continue;
      const std::size_t row0 = 2 * b.first_row, rows = std::min(s.out_h, 2 * (b.first_row + b.rows)) - row0;
      const std::size_t offset = plane_at + row0 * s.out_w;
      apply_conv_activation(isa, *activation, o, y + offset, rows * s.out_w, offset);
    }
  }

  Isa isa;
};

// Workspace slots for blocks run in parallel, one a thread: a chunk takes a free one for its block
// and gives it back. A thread asks first for the slot it had last, so the transformed inputs and
// products it writes are in its own caches: a line last read by another core costs a coherence
// round trip to write (the shared steps' workspace did, and 128 -> 32 at 56 x 56 took 2.6 ms at two
// threads against 1.3 at one). At most as many chunks run at once as the pool has threads (<= 64).
class Slots {
 public:
  // `count` slots (1 to 64); the bits past them count as taken, so a slot remembered from a call
  // with more threads (another session's pool, the same calling thread) is never handed out.
  explicit Slots(std::size_t count) noexcept
      : used_(count >= 64 ? std::uint64_t{0} : ~((std::uint64_t{1} << count) - 1)) {}

  std::size_t take() noexcept {
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
  void give(std::size_t slot) noexcept { used_.fetch_and(~(std::uint64_t{1} << slot), std::memory_order_release); }

 private:
  std::atomic<std::uint64_t> used_;
};

}  // namespace

bool winograd_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                 const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                                 const ConvActivation* activation) {
  std::atomic<bool> finite{true};
  const std::size_t cin = s.in_channels, cout = s.out_channels;
  const Geometry geometry{&s, winograd_tile_cols(s)};
  const std::size_t tile_rows = winograd_tile_rows(s);
  const KernelContext alone{context.isa, context.exact, nullptr};
  const std::size_t threads = context.pool != nullptr ? static_cast<std::size_t>(context.pool->threads()) : 1;
  const WinogradBlocks blocks = winograd_blocks(s, threads);
  if (workspace == nullptr) {
    // The calling thread's buffer, the same for every Winograd layer it runs: a run's scratch is
    // fresh memory for each node until the run ends (the arena only grows within a run), and
    // writing megabytes last touched a run ago made SqueezeNet's 3x3 layers slower in the model
    // (16 -> 64 at 55: 656 -> 1063 us) than alone (589 -> 410).
    thread_local gemm::GrowingBuffer buffer;
    workspace = buffer.reserve(blocks.workspace);
  }
  auto image_run = [&](std::size_t image) {
    return ImageRun{s, geometry, packed, x + image * cin * s.in_plane(), y, image, bias, activation, finite,
                    context.isa};
  };
  if (blocks.parallel) {
    const double per_tile_row = static_cast<double>(geometry.tile_cols) *
                                (kTransformNsPerTile * static_cast<double>(cin + cout) +
                                 kWinogradElements * static_cast<double>(cin * cout) / kMultiplyAddsPerNs);
    Slots slots(threads);
    context.parallel_for(s.batch * blocks.count, per_tile_row * static_cast<double>(s.batch * tile_rows),
                         [&](std::size_t chunk) {
                           const ImageRun run = image_run(chunk / blocks.count);
                           const std::size_t slot = slots.take();
                           const Block b = run.block(chunk % blocks.count * blocks.rows, blocks.rows,
                                                     workspace + slot * blocks.floats);
                           run.inputs(b, 0, cin);
                           run.products(alone, b, 0, kWinogradElements);
                           run.outputs(b, 0, cout);
                           slots.give(slot);
                         });
    return finite.load(std::memory_order_relaxed);
  }
  const std::size_t in_chunks = (cin + kChannelsPerChunk - 1) / kChannelsPerChunk;
  const std::size_t out_chunks = (cout + kChannelsPerChunk - 1) / kChannelsPerChunk;
  for (std::size_t image = 0; image < s.batch; ++image) {
    const ImageRun run = image_run(image);
    for (std::size_t first = 0; first < tile_rows; first += blocks.rows) {
      // The threads share each step: channels of the input transform, the sixteen products,
      // channels of the output transform.
      const Block b = run.block(first, blocks.rows, workspace);
      const double tile_work = static_cast<double>(b.tiles) * kTransformNsPerTile;
      context.parallel_for(in_chunks, tile_work * static_cast<double>(cin), [&](std::size_t chunk) {
        run.inputs(b, chunk * kChannelsPerChunk, std::min(cin, (chunk + 1) * kChannelsPerChunk));
      });
      const double product_work =
          static_cast<double>(cout) * static_cast<double>(cin) * static_cast<double>(b.tiles) / kMultiplyAddsPerNs;
      context.parallel_for(kWinogradElements, product_work * kWinogradElements,
                           [&](std::size_t e) { run.products(alone, b, e, e + 1); });
      context.parallel_for(out_chunks, tile_work * static_cast<double>(cout), [&](std::size_t chunk) {
        run.outputs(b, chunk * kChannelsPerChunk, std::min(cout, (chunk + 1) * kChannelsPerChunk));
      });
    }
  }
  return finite.load(std::memory_order_relaxed);
}

}  // namespace onemodel::opt
