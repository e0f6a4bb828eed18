// The integer convolution of ConvInteger and QLinearConv (spec-source int8.md "Convolution";
// spec/ops/quantization.md section 7): y [n, m, spatial...] int32, every sum the reference's
// modulo 2^32, so the bits are the reference's on every path and thread count.
// - General groups: the integer product kernel (optimized/kernels/int8gemm) per image, group,
//   block of kColumnBlock output positions and block of kRowBlock output channels, the windows
//   packed (once per image, group and column block) straight into B's panels
//   (pack_b_with: im2col fused into the packing, no column buffer; a padding tap holds the
//   input's zero point, so it contributes (zx - zx) = 0), the group's weights as A with their
//   zero point per output channel.
// - Depthwise (group = input channels): the direct kernel of integer_depthwise.hpp.
// The weights' part (the per-group zero points, the depthwise taps) is made once per plan when
// the weights are constant (IntegerConvWeights), else per call.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "optimized/frame/function_ref.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {

// Output positions per chunk of the general path: a multiple of every path's nr (16, 32). A
// constant, so the chunks never depend on the thread count.
inline constexpr std::int64_t kColumnBlock = 256;
// Output channels per chunk of the product when the output channels are shared out (below
// kPackChunksForOnePhase (image, group, column block) triples): a multiple of int8::kMc (48,
// itself a multiple of every path's mr), a constant for the same reason.
inline constexpr std::int64_t kRowBlock = 96;
inline constexpr std::size_t kPackChunksForOnePhase = 8;

// Where row kk of B (input channel c of the group, tap kd, ky, kx) reads: the channel's plane and
// the tap's dilated offsets on each axis.
struct ConvTapOffset {
  std::int64_t plane, d, y, x;
  std::int64_t linear;  // plane + (d * in_h + y) * in_w + x: the offset from the window's first tap
};

// What the weights give once: the contiguous weight tensor, its zero points as the kernel takes
// them per group (one value, or one per output channel of the group) and, for a depthwise
// convolution, (w - zw) per output channel and tap; for the general path the windows' tap offsets
// (from the geometry alone), so a call with prepared weights builds no table (graph-runtime.md
// section 4: a warm run allocates nothing).
struct IntegerConvWeights {
  Tensor w;
  bool is_signed = false;
  bool depthwise = false;
  std::vector<std::vector<std::int32_t>> za;  // per group
  std::vector<std::int32_t> taps;             // depthwise: m * taps values, |v| <= 255
  std::vector<ConvTapOffset> offsets;         // general: one per row of B
  std::vector<std::int64_t> linear;           // general: offsets[kk].linear, compact
  bool pointwise = false;                     // general: B is the input plane itself
};

// True when the convolution runs the direct depthwise kernel (one input channel per group).
inline bool integer_conv_is_depthwise(const quant::IntegerConvGeometry& g) {
  return g.group == g.c && g.group > 0 && g.m % g.group == 0;
}

// The weights' part from the weight tensor `w` and its zero points `zw` (one or g.m values).
IntegerConvWeights prepare_integer_conv_weights(const quant::IntegerConvGeometry& g, const Tensor& w,
                                                const std::vector<std::int32_t>& zw);

// What a chunk has just written: output channels [oc0, oc0 + channels) of image n, positions
// [col0, col0 + cols) of their planes. QLinearConv requantizes them there, while they are in cache.
using IntegerConvEpilogue = FunctionRef<void(std::int64_t n, std::int64_t oc0, std::int64_t channels,
                                             std::int64_t col0, std::int64_t cols)>;

// y [n, m, spatial...] (int32) from the input `x` (uint8 or int8, zero point zx) and prepared
// weights; `epilogue` (when given) is called by each chunk on the part of y it wrote.
void run_integer_conv(const quant::IntegerConvGeometry& g, const Tensor& x, std::int32_t zx,
                      const IntegerConvWeights& weights, std::int32_t* y, const OptimizedConfig& config,
                      const IntegerConvEpilogue* epilogue = nullptr);

}  // namespace onemodel::opt
