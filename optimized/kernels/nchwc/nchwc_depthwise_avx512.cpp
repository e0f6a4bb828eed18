// The blocked depthwise convolution on the AVX-512 path (nchwc.hpp): the register tiles of the
// channel-blocked depthwise kernel (depthwise_blocked_body.hpp, sixteen channels per vector, the
// taps in row-major order), fed from an input that is already channel-blocked. A chunk is a band
// of output rows of one block: its input rows are copied whole (one contiguous run per row, no
// transpose) into a zero-bordered tile, and its outputs are stored straight into a blocked y, or
// through the thread's buffer into the channel planes of a [N, C, H, W] y. Compiled with the
// AVX-512 flags.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "optimized/kernels/conv/depthwise_blocked_body.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx512.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"

namespace onemodel::opt::nchwc {
namespace {

using L = Avx512DirectLanes;
namespace body = depthwise_blocked_body;

// The padded input tile of a band stays within this many bytes (in L1 while the band is computed).
constexpr std::size_t kTileBytes = 32768;
constexpr double kInsideShare = 0.85;

// The band's outputs from a zero-bordered copy of the input rows its windows read (padding taps
// real products with +0, as the reference has them): for weights that are not all finite, whose
// products with the padding's zeros are NaN.
void band_through_tile(const Conv2dShape& s, const float* xb, const float* weights, const float* bias,
                       std::size_t oy0, std::size_t rows, float* out, body::Scratch& sc) {
  const std::size_t pw = s.padded_w();
  // The band's windows read padded rows py0 .. py0 + th - 1 (padded row py is input row
  // py - pad_top).
  const std::size_t py0 = oy0 * s.stride_h;
  const std::size_t th = (rows - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1;
  float* tile = sc.tile.reserve(th * pw * kBlock);
  const std::size_t cols = std::min(s.in_w, pw > s.pad_left ? pw - s.pad_left : 0);
  for (std::size_t r = 0; r < th; ++r) {
    float* dst = tile + r * pw * kBlock;
    const std::size_t py = py0 + r;
    if (py < s.pad_top || py - s.pad_top >= s.in_h || cols == 0) {
      std::memset(dst, 0, pw * kBlock * sizeof(float));
      continue;
    }
    const float* src = xb + (py - s.pad_top) * s.in_w * kBlock;
    std::memset(dst, 0, s.pad_left * kBlock * sizeof(float));
    std::memcpy(dst + s.pad_left * kBlock, src, cols * kBlock * sizeof(float));
    const std::size_t right = pw - s.pad_left - cols;
    std::memset(dst + (s.pad_left + cols) * kBlock, 0, right * kBlock * sizeof(float));
  }
  Conv2dShape band_shape = s;
  band_shape.out_h = rows;
  body::BlockJob bj;
  bj.s = &band_shape;
  bj.tile = tile;
  bj.tile_w = pw;
  bj.weights = weights;
  bj.bias = bias;
  bj.out = out;
  body::block_outputs<L, false>(bj);
}

// The outputs [lo, hi) along one axis whose windows (span + 1 inputs from out * stride - pad)
// lie inside the input's `in` positions.
std::pair<std::size_t, std::size_t> inside_range(std::size_t in, std::size_t pad, std::size_t span,
                                                 std::size_t stride, std::size_t out) noexcept {
  const std::size_t lo = std::min(out, (pad + stride - 1) / stride);
  const std::size_t hi = in + pad > span ? std::min(out, (in + pad - span - 1) / stride + 1) : 0;
  return {lo, std::max(lo, hi)};
}

// One output whose window reaches past the input: its taps inside the input in row-major order
// (with finite weights a padding tap adds +0 * w = +0, which changes no sum but -0's sign, and
// fast mode keeps no sign of zero), then the bias.
void border_output(const Conv2dShape& s, const float* xb, const float* weights, const float* bias, std::size_t oy,
                   std::size_t ox, float* dst) noexcept {
  __m512 acc = _mm512_setzero_ps();
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * s.stride_h + ky * s.dilation_h) -
                              static_cast<std::ptrdiff_t>(s.pad_top);
    if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(s.in_h)) continue;
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * s.stride_w + kx * s.dilation_w) -
                                static_cast<std::ptrdiff_t>(s.pad_left);
      if (ix < 0 || ix >= static_cast<std::ptrdiff_t>(s.in_w)) continue;
      const __m512 w = _mm512_loadu_ps(weights + (ky * s.kernel_w + kx) * kBlock);
      acc = _mm512_fmadd_ps(w, _mm512_loadu_ps(xb + (static_cast<std::size_t>(iy) * s.in_w + static_cast<std::size_t>(ix)) * kBlock), acc);
    }
  }
  _mm512_storeu_ps(dst, _mm512_add_ps(acc, _mm512_loadu_ps(bias)));
}

// The outputs [lo, hi) of row oy whose windows lie inside the input, read in place by the
// channel-blocked kernel's register tiles: `view` addresses the input as that kernel addresses
// its padded tile (view row r, column c is input row r - pad_top, column c - pad_left).
template <std::size_t K, std::size_t S>
void inside_row(const body::BlockJob& view, std::size_t oy, std::size_t lo, std::size_t hi) noexcept {
  for (std::size_t ox = lo; ox < hi; ox += body::kTileOutputs) {
    body::output_tile_n<L, false, K, S>(view, oy, ox, std::min(body::kTileOutputs, hi - ox));
  }
}

// The band's outputs with finite weights, no copy of the input: the outputs whose windows lie
// inside the input by the register tiles, the others one by one (border_output).
void band_in_place(const Conv2dShape& s, const float* xb, const float* weights, const float* bias, std::size_t oy0,
                   std::size_t rows, float* out) {
  // Columns [lo, hi) have every tap inside the input: ox * stride >= pad_left and
  // ox * stride - pad_left + (kernel_w - 1) * dilation < in_w.
  const auto [lo, hi] = inside_range(s.in_w, s.pad_left, (s.kernel_w - 1) * s.dilation_w, s.stride_w, s.out_w);
  const std::size_t span_h = (s.kernel_h - 1) * s.dilation_h;
  const bool square = s.kernel_h == s.kernel_w && s.stride_h == s.stride_w && s.dilation_h == 1 && s.dilation_w == 1;
  // The view's row 0 is padded row oy0 * stride_h: input row oy0 * stride_h - pad_top. Its first
  // address may lie before the block's data; only addresses inside the input are read.
  const std::ptrdiff_t first_row = static_cast<std::ptrdiff_t>(oy0 * s.stride_h) - static_cast<std::ptrdiff_t>(s.pad_top);
  const std::ptrdiff_t shift =
      (first_row * static_cast<std::ptrdiff_t>(s.in_w) - static_cast<std::ptrdiff_t>(s.pad_left)) *
      static_cast<std::ptrdiff_t>(kBlock);
  body::BlockJob view;
  view.s = &s;
  view.tile = reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(xb) + shift * static_cast<std::ptrdiff_t>(sizeof(float)));
  view.tile_w = s.in_w;
  view.weights = weights;
  view.bias = bias;
  view.out = out;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t oy = oy0 + r;
    float* row_out = out + r * s.out_w * kBlock;
    const bool inside = oy * s.stride_h >= s.pad_top && oy * s.stride_h - s.pad_top + span_h < s.in_h;
    const std::size_t a = inside ? lo : s.out_w, b = inside ? hi : s.out_w;
    for (std::size_t ox = 0; ox < a; ++ox) border_output(s, xb, weights, bias, oy, ox, row_out + ox * kBlock);
    if (a < b) {
      // output_tile_* write j.out + (row * out_w + ox) lanes: row r of the band.
      if (square && s.kernel_w == 3 && s.stride_w == 1) {
        inside_row<3, 1>(view, r, a, b);
      } else if (square && s.kernel_w == 3 && s.stride_w == 2) {
        inside_row<3, 2>(view, r, a, b);
      } else if (square && s.kernel_w == 5 && s.stride_w == 1) {
        inside_row<5, 1>(view, r, a, b);
      } else if (square && s.kernel_w == 5 && s.stride_w == 2) {
        inside_row<5, 2>(view, r, a, b);
      } else {
        inside_row<0, 0>(view, r, a, b);
      }
    }
    for (std::size_t ox = b; ox < s.out_w; ++ox) border_output(s, xb, weights, bias, oy, ox, row_out + ox * kBlock);
  }
}

}  // namespace

void depthwise_f32__avx512(const KernelContext& context, const Depthwise& job) {
  const Conv2dShape& s = job.shape;
  const std::size_t channels = s.out_channels;
  if (s.batch == 0 || channels == 0 || s.out_plane() == 0) return;
  const std::size_t blocks = blocks_of(channels), taps = s.taps();
  const std::size_t pw = s.padded_w();
  // Rows per band: as many as keep the tile (rows (band - 1) * stride + the window's height, each
  // pw vectors) within kTileBytes; at least one.
  const std::size_t row_bytes = pw * kBlock * sizeof(float);
  const std::size_t tile_rows = std::max<std::size_t>(kTileBytes / row_bytes, 1);
  const std::size_t window_rows = (s.kernel_h - 1) * s.dilation_h + 1;
  const std::size_t band =
      std::clamp<std::size_t>(tile_rows > window_rows ? (tile_rows - window_rows) / s.stride_h + 1 : 1, 1, s.out_h);
  const std::size_t bands = (s.out_h + band - 1) / band;
  const std::size_t in_image = blocks * kBlock * s.in_plane();
  const std::size_t out_image = (job.out_blocked ? blocks * kBlock : channels) * s.out_plane();
  const double total = static_cast<double>(s.batch * blocks * s.out_plane() * taps);
  // In place when at least kInsideShare of the outputs have their whole window inside the input
  // (the rest go one by one, border_output); else through the bordered copy, whose tiles serve
  // every output alike (a 5x5 window over a 7 x 7 map leaves 9 of 49 outputs inside).
  const auto rows = inside_range(s.in_h, s.pad_top, (s.kernel_h - 1) * s.dilation_h, s.stride_h, s.out_h);
  const auto cols = inside_range(s.in_w, s.pad_left, (s.kernel_w - 1) * s.dilation_w, s.stride_w, s.out_w);
  const std::size_t inside_outputs = (rows.second - rows.first) * (cols.second - cols.first);
  const bool in_place = job.finite_weights && static_cast<double>(inside_outputs) >= kInsideShare * static_cast<double>(s.out_plane());
  // Chunks band by band, blocks innermost: the caller (claiming from the front) takes the top of
  // the map, as in the 1x1 layers around it (nchwc_pointwise_avx512.cpp).
  const std::size_t per_image = bands * blocks;
  const auto run_chunk = [&](std::size_t n, std::size_t rest) {
    const std::size_t oy0 = (rest / blocks) * band, block = rest % blocks;
    const std::size_t rows = std::min(band, s.out_h - oy0);
    body::Scratch& sc = body::thread_scratch();
    const float* xb = job.x + n * in_image + block * s.in_plane() * kBlock;
    float* out = job.out_blocked ? job.y + n * out_image + (block * s.out_plane() + oy0 * s.out_w) * kBlock
                                 : sc.out.reserve(rows * s.out_w * kBlock);
    const float* weights = job.weights + block * taps * kBlock;
    const float* bias = job.bias + block * kBlock;
    if (in_place) {
      band_in_place(s, xb, weights, bias, oy0, rows, out);
    } else {
      band_through_tile(s, xb, weights, bias, oy0, rows, out, sc);
    }
    const std::size_t count = rows * s.out_w;
    // The activation over the band's outputs, contiguous in either case (no residual here).
    if (job.activation != nullptr) {
      const std::size_t at = job.out_blocked ? static_cast<std::size_t>(out - job.y) : 0;
      apply_conv_activation(context.isa, *job.activation, block * kBlock, out, count * kBlock, at);
    }
    if (job.out_blocked) return;
    // Into the channel planes: sixteen positions by sixteen channels transposed in registers.
    const std::size_t c0 = block * kBlock, lanes = std::min(kBlock, channels - c0);
    float* first = job.y + n * out_image + c0 * s.out_plane() + oy0 * s.out_w;
    __m512 in[kBlock], columns[kBlock];
    for (std::size_t p0 = 0; p0 < count; p0 += kBlock) {
      const std::size_t m = std::min(kBlock, count - p0);
      for (std::size_t q = 0; q < kBlock; ++q) in[q] = q < m ? _mm512_loadu_ps(out + (p0 + q) * kBlock) : _mm512_setzero_ps();
      L::transpose(in, columns);
      const __mmask16 mask = static_cast<__mmask16>(m == kBlock ? 0xFFFFu : (1u << m) - 1u);
      for (std::size_t l = 0; l < lanes; ++l) _mm512_mask_storeu_ps(first + l * s.out_plane() + p0, mask, columns[l]);
    }
  };
  if (runs_by_images(context, s.batch)) {
    context.parallel_for(s.batch, total / 8.0, [&](std::size_t n) {
      for (std::size_t c = 0; c < per_image; ++c) run_chunk(n, c);
    });
    return;
  }
  context.parallel_for(s.batch * per_image, total / 8.0,
                       [&](std::size_t chunk) { run_chunk(chunk / per_image, chunk % per_image); });
}

}  // namespace onemodel::opt::nchwc
