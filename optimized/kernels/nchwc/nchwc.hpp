// The channel-blocked activation layout of fast mode on the AVX-512 path (docs/design.md
// "Channel-blocked activations"): a float32 tensor of logical shape [N, C, H, W] stored as
// [N, ceil(C / 16), H, W, 16], channel c of position (h, w) at lane c % 16 of block c / 16. The
// `nchwc-layout` pass (optimized/passes/nchwc_layout.cpp) gives this layout to the values that
// flow between 1x1 and depthwise convolutions, so a depthwise layer reads sixteen channels of one
// position as one vector and a 1x1 layer broadcasts its input in place, with no interleaving
// copy per layer (what the NCHW depthwise kernels pay, depthwise_blocked.hpp). Lanes past C in
// the last block are written by every producer (zero weights and bias: finite values, never
// read as data) so no stale bits, subnormal or NaN, sit in memory a kernel loads.
//
// Fast mode only: one fused multiply-add per product, input channels in increasing order for
// the 1x1 layers and taps in row-major order for the depthwise ones, the bias first. Which
// thread computes an output never changes it, so the bits are the same at any thread count.
#pragma once

#include <cstddef>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt::nchwc {

inline constexpr std::size_t kBlock = 16;  // channels per block: the lanes of one AVX-512 vector

inline constexpr std::size_t blocks_of(std::size_t channels) noexcept { return (channels + kBlock - 1) / kBlock; }

// A 1x1 convolution, stride 1, no padding, one group: y[n, co, p] = bias[co] + sum over ci of
// w[co, ci] * x[n, ci, p], p the flattened position.
struct Pointwise {
  std::size_t batch = 0, in_channels = 0, out_channels = 0, plane = 0;  // plane = H * W
  bool in_blocked = false;   // x in the blocked layout, else [N, C, H, W]
  bool out_blocked = false;  // y (and the residual) in the blocked layout, else [N, C, H, W]
  const float* x = nullptr;
  const float* weights = nullptr;  // pack_pointwise's layout
  const float* bias = nullptr;     // blocks_of(out_channels) * 16 values (zeros past the channels)
  float* y = nullptr;
  // After the bias and the sum: the residual (y's layout and shape), then the activation.
  const ConvActivation* activation = nullptr;
};

// w [Cout, Cin] (row-major) as pairs of output blocks, [ceil(blocks_of(Cout) / 2)][Cin][2][16],
// zeros past Cout: the two weight vectors of one input channel in one 128-byte run.
std::vector<float> pack_pointwise(const float* w, std::size_t out_channels, std::size_t in_channels);
// bias (Cout values, or nullptr: zeros) as blocks_of(Cout) * 16 values.
std::vector<float> pack_bias(const float* bias, std::size_t out_channels);
// Depthwise filters w [C, 1, KH, KW] as [blocks_of(C)][KH * KW][16], zeros past C.
std::vector<float> pack_depthwise(const float* w, std::size_t channels, std::size_t taps);

// A depthwise convolution (groups == in_channels == out_channels) reading a blocked x, any
// stride, padding and dilation of `shape`; y blocked or [N, C, H, W].
struct Depthwise {
  Conv2dShape shape;
  bool out_blocked = false;
  const float* x = nullptr;
  const float* weights = nullptr;  // pack_depthwise's layout
  const float* bias = nullptr;     // pack_bias's layout
  float* y = nullptr;
  const ConvActivation* activation = nullptr;  // as Pointwise's
  // Every weight finite: windows reaching past the input skip their padding taps (products with
  // +0 that add nothing); else they read a zero-bordered copy, so an infinite weight meets its
  // padding as the reference has it (a NaN).
  bool finite_weights = false;
};

// Whether a batch runs one chunk per image (each image on one thread), as conv2d_f32 does for its
// packed products (conv2d.cpp, runs_image_chunks): where the pool's threads divide the batch, or
// it is four times the threads, every layer then splits the batch the same way and each thread
// reads the images it wrote. Only who runs a chunk changes, never a value.
inline bool runs_by_images(const KernelContext& context, std::size_t batch) noexcept {
  if (context.pool == nullptr || batch < 2) return false;
  const auto threads = static_cast<std::size_t>(context.pool->threads());
  return threads >= 2 && (batch % threads == 0 || batch >= 4 * threads);
}

#if defined(__x86_64__)
// Require an AVX-512 machine (the pass makes these nodes on that path only).
void pointwise_f32__avx512(const KernelContext& context, const Pointwise& job);
void depthwise_f32__avx512(const KernelContext& context, const Depthwise& job);
// The squeeze-and-excitation pair on a blocked x of `channels` channels over `plane` positions:
// GlobalAveragePool into y [N, C] (the sum over positions, in four interleaved partial sums, then
// divided by the count), and y = x * s with s [N, C] broadcast over the positions (blocked y,
// padding lanes times +0).
void global_average_pool_f32__avx512(const KernelContext& context, const float* x, std::size_t batch,
                                     std::size_t channels, std::size_t plane, float* y);
void scale_f32__avx512(const KernelContext& context, const float* x, const float* s, std::size_t batch,
                       std::size_t channels, std::size_t plane, float* y);
#endif

}  // namespace onemodel::opt::nchwc
