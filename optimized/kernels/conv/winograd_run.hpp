// The Winograd F(2x2, 3x3) driver shared by the instruction-set paths (winograd.hpp): per image and
// block of tile rows, the input transform, the sixteen products on the packed transformed filters,
// then the output transform with the bias, and the activation on the finished rows. Each path
// supplies only its Geometry, the two transforms over a vector of tiles:
//
//   Geometry(const Conv2dShape* s, std::size_t tile_cols);
//   static constexpr std::size_t kTilesPerVector;
//   // B^T d B for the tiles from column tile tx0 of tile row ty of channel plane x_c, stored at
//   // out + e * stride + t for element e (lanes past the row's last tile not stored).
//   void transform_inputs(const float* x_c, std::size_t ty, std::size_t tx0, float* out,
//                         std::size_t stride) const;
//   // A^T m A + bias for the tiles from column tile tx0 of tile row ty, products at
//   // m + e * stride + t (lanes past the row's last tile not read); writes output rows 2 ty and
//   // 2 ty + 1 (where inside) of plane y_o. True when an output came out NaN.
//   bool transform_outputs(const float* m, std::size_t stride, float bias, std::size_t ty,
//                          std::size_t tx0, float* y_o) const;
//
// Everything here is a template on the Geometry, so that each path's file, compiled with its own
// instruction-set flags, gets a copy of its own (an inline function shared by files of different
// flags could be merged by the linker into the wider path's code). Include only from those files.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "optimized/kernels/conv/winograd.hpp"
#include "optimized/kernels/gemm/gemm_buffer.hpp"

namespace onemodel::opt::winograd {

// Rough costs for the pool's decision to wake a second thread (kernels-gemm.md "Fixed chunks"):
// nanoseconds per tile and channel of a transform; the products' is the product's own estimate.
inline constexpr double kTransformNsPerTile = 1.0;
inline constexpr std::size_t kChannelsPerChunk = 4;

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

// One image's blocks: the three steps over ranges of channels or elements, so that a block can be
// run by one thread whole (blocks in parallel) or by all threads step by step.
template <class Geometry>
struct ImageRun {
  const Conv2dShape& s;
  const Geometry& geometry;
  std::size_t tile_cols;
  const std::vector<PackedA>& packed;
  const float* x_image;
  float* y;  // the whole output
  std::size_t image;
  const float* bias;
  const ConvActivation* activation;
  std::atomic<bool>& finite;
  Isa isa;

  Block block(std::size_t first, std::size_t rows, float* workspace) const {
    Block b;
    b.first_row = first;
    b.rows = std::min(rows, winograd_tile_rows(s) - first);
    b.tiles = b.rows * tile_cols;
    b.input_stride = winograd_element_stride(s.in_channels * b.tiles);
    b.product_stride = winograd_element_stride(s.out_channels * b.tiles);
    b.inputs = workspace;
    b.products = workspace + kWinogradElements * b.input_stride;
    return b;
  }

  void inputs(const Block& b, std::size_t c_begin, std::size_t c_end) const {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      for (std::size_t r = 0; r < b.rows; ++r) {
        for (std::size_t tx = 0; tx < tile_cols; tx += Geometry::kTilesPerVector) {
          float* out = b.inputs + c * b.tiles + r * tile_cols + tx;
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
      const float add = bias != nullptr ? bias[o] : -0.0f;
      const std::size_t plane_at = (image * s.out_channels + o) * s.out_plane();
      bool nan = false;
      for (std::size_t r = 0; r < b.rows; ++r) {
        for (std::size_t tx = 0; tx < tile_cols; tx += Geometry::kTilesPerVector) {
          const float* m = b.products + o * b.tiles + r * tile_cols + tx;
          nan |= geometry.transform_outputs(m, b.product_stride, add, b.first_row + r, tx, y + plane_at);
        }
      }
      if (nan) finite.store(false, std::memory_order_relaxed);
      if (activation == nullptr) continue;
      const std::size_t row0 = 2 * b.first_row, rows = std::min(s.out_h, 2 * (b.first_row + b.rows)) - row0;
      const std::size_t offset = plane_at + row0 * s.out_w;
      apply_conv_activation(isa, *activation, o, y + offset, rows * s.out_w, offset);
    }
  }
};

// The whole convolution (winograd.hpp, winograd_conv2d_f32__<path>) with this path's transforms.
template <class Geometry>
bool run(const KernelContext& context, const Conv2dShape& s, const float* x, const std::vector<PackedA>& packed,
         const float* bias, float* y, float* workspace, const ConvActivation* activation) {
  std::atomic<bool> finite{true};
  const std::size_t cin = s.in_channels, cout = s.out_channels;
  const std::size_t tile_cols = winograd_tile_cols(s);
  const Geometry geometry(&s, tile_cols);
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
    return ImageRun<Geometry>{s,    geometry, tile_cols,  packed, x + image * cin * s.in_plane(), y, image,
                              bias, activation, finite, context.isa};
  };
  if (blocks.parallel) {
    const double per_tile_row = static_cast<double>(tile_cols) *
                                (kTransformNsPerTile * static_cast<double>(cin + cout) +
                                 kWinogradElements * static_cast<double>(cin * cout) / gemm::kMultiplyAddsPerNs);
    WinogradSlots slots(threads);
    context.parallel_for(s.batch * blocks.count, per_tile_row * static_cast<double>(s.batch * tile_rows),
                         [&](std::size_t chunk) {
                           const ImageRun<Geometry> r = image_run(chunk / blocks.count);
                           const std::size_t slot = slots.take();
                           const Block b = r.block(chunk % blocks.count * blocks.rows, blocks.rows,
                                                   workspace + slot * blocks.floats);
                           r.inputs(b, 0, cin);
                           r.products(alone, b, 0, kWinogradElements);
                           r.outputs(b, 0, cout);
                           slots.give(slot);
                         });
    return finite.load(std::memory_order_relaxed);
  }
  const std::size_t in_chunks = (cin + kChannelsPerChunk - 1) / kChannelsPerChunk;
  const std::size_t out_chunks = (cout + kChannelsPerChunk - 1) / kChannelsPerChunk;
  for (std::size_t image = 0; image < s.batch; ++image) {
    const ImageRun<Geometry> r = image_run(image);
    for (std::size_t first = 0; first < tile_rows; first += blocks.rows) {
      // The threads share each step: channels of the input transform, the sixteen products,
      // channels of the output transform.
      const Block b = r.block(first, blocks.rows, workspace);
      const double tile_work = static_cast<double>(b.tiles) * kTransformNsPerTile;
      context.parallel_for(in_chunks, tile_work * static_cast<double>(cin), [&](std::size_t chunk) {
        r.inputs(b, chunk * kChannelsPerChunk, std::min(cin, (chunk + 1) * kChannelsPerChunk));
      });
      const double product_work = static_cast<double>(cout) * static_cast<double>(cin) *
                                  static_cast<double>(b.tiles) / gemm::kMultiplyAddsPerNs;
      context.parallel_for(kWinogradElements, product_work * kWinogradElements,
                           [&](std::size_t e) { r.products(alone, b, e, e + 1); });
      context.parallel_for(out_chunks, tile_work * static_cast<double>(cout), [&](std::size_t chunk) {
        r.outputs(b, chunk * kChannelsPerChunk, std::min(cout, (chunk + 1) * kChannelsPerChunk));
      });
    }
  }
  return finite.load(std::memory_order_relaxed);
}

}  // namespace onemodel::opt::winograd
