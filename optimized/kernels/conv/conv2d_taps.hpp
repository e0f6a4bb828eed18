// Fast mode's convolution tap by tap, for windows that mostly reach into padding (a dilated 3x3
// with rate 12 on a 14x14 map, DeepLabV3's ASPP), where exact mode runs the tap regions
// (conv2d_regions.hpp).
//
// The regions keep exact mode's per-output order, (c, ky, kx) increasing, so each region's product
// reads the weights of all its taps interleaved by channel: a region through six taps reads six
// taps' weights for its few outputs, and DeepLabV3's 960 -> 256 layer read 17 taps' worth (17 MB)
// for 196 outputs where the layer has 9, a product bound by memory. Fast mode fixes no order
// across taps (kernels-gemm.md, "Fast mode": deterministic on one machine, whatever the thread
// count), so here each tap t is one product of W_t (Cout x Cin per group) and the input shifted to
// that tap, over the rectangle of outputs for which the tap lies inside the image, added into the
// output: every weight is read once a call. A tap whose rectangle is the whole plane (the centre
// of a "same" convolution) runs first, W_t as A against its shifted input as a strip source, and
// stores; every other tap reaches few outputs (a border), and runs transposed -- those outputs'
// inputs as A, W_t^T packed as B, which the product streams strip by strip, as a transformer's
// tokens against its weights -- and its finished tiles are added into the output. Each output's
// sum runs over its inside taps in the plan's order, then the bias and the activation once: the
// same values at any thread count, since every tile's additions land on outputs no other tile
// touches. Leaving out a padding tap changes no value for finite weights (the argument of
// conv2d_regions.hpp); a plan is made only when every weight is finite.
//
// Session 43, Intel Xeon (model 167), DeepLabV3-MobileNetV3's 960 -> 256 3x3 with dilation 12 on
// its 14 x 14 map, one thread, in the model: 4212 us by the regions (17 taps' weights read), 2583
// tap by tap with every tap as W_t against its input, 2089 with the border taps transposed (their
// packed A of 4 to 28 columns had been read at 3-7 GB/s); ONNX Runtime 1972.
#pragma once

#include <cstddef>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {

// One tap (ky, kx) and the outputs [oy_begin, oy_end) x [ox_begin, ox_end) for which it reads
// inside the image: for every other output it lies in the padding.
struct ConvTap {
  std::size_t ky = 0, kx = 0;
  std::size_t oy_begin = 0, oy_end = 0, ox_begin = 0, ox_end = 0;
  std::size_t rows() const noexcept { return oy_end - oy_begin; }
  std::size_t cols() const noexcept { return ox_end - ox_begin; }
  std::size_t outputs() const noexcept { return rows() * cols(); }
};

struct ConvTapPlan {
  std::vector<ConvTap> taps;           // the taps inside the image for some output, in (ky, kx) order
  // Per tap, per group: W[:, :, ky, kx] as the product's A for a first tap covering the plane,
  // else transposed as its B (packs_b), the other left empty.
  std::vector<std::vector<PackedA>> packs;
  std::vector<std::vector<PackedB>> packs_b;
  // The first tap's product is stored straight into the output when it covers the whole plane;
  // every other tap's transposed product goes through this workspace (its outputs x Cout/G, after
  // its gathered inputs, its outputs x Cin/G) and is added.
  bool first_covers_plane = false;
  std::size_t workspace_floats = 0;
  bool empty() const noexcept { return taps.empty(); }
};

// The plan for constant weights w [Cout, Cin/G, KH, KW] on `isa`, or an empty plan when it would not
// pay: some weight infinite or NaN, the inside taps adding up to more than half of the products
// of the whole window (then the im2col product, whose one K serves every output, is kept), or more
// than 49 products (inside taps times groups: each is a call of its own).
ConvTapPlan conv2d_plan_taps(Isa isa, const Conv2dShape& shape, const float* w);

// The convolution by the plan (fast mode only): x, bias, y and `activation` (with a fused
// residual or normalization) as conv2d_f32; `workspace` holds plan.workspace_floats floats.
void conv2d_f32_taps(const KernelContext& context, const Conv2dShape& shape, const ConvTapPlan& plan, const float* x,
                     const float* bias, float* y, float* workspace, const ConvActivation* activation = nullptr);

}  // namespace onemodel::opt
