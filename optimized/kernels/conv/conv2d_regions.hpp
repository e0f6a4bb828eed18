// A convolution whose windows mostly reach into padding (a dilated 3x3 with rate 12..36 on a
// 14x14 map, DeepLabV3's ASPP: most of its im2col matrix is +0) as one matrix product per
// rectangle of outputs that read the image through the same taps, each over those taps only.
//
// Why the bits stay the reference's (exact-mode.md "Convolution": per output acc = +0, then
// acc = round(acc + round(w * v)) over (c, ky, kx) increasing, padding taps real products with
// +0): a padding tap adds round(w * +0), which is +0 or -0 when w is finite. acc starts at +0 and
// a rounded sum is -0 only when both addends are -0 (x + (-x) is +0 to nearest), so acc is never
// -0; and acc + (+-0) is acc for every acc that is not -0 (a NaN stays a NaN, canonical at the
// end in exact mode). Leaving out the padding taps of an output therefore changes none of its
// bits, and the taps that remain keep their increasing (c, ky, kx) order. With an infinite or NaN
// weight w * +0 is NaN, so a plan is made only when every weight is finite.
#pragma once

#include <cstddef>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {

// Outputs [oy_begin, oy_end) x [ox_begin, ox_end) computed through kernel rows [ky_first,
// ky_past) and columns [kx_first, kx_past): every tap outside those lies in the padding for each
// of them, every kernel row inside reads the image for each of them, and a kernel column may
// still reach the padding for some (a region as wide as the plane, through the union of its
// column bands' taps), where it is a product with +0 as in im2col.
struct ConvTapRegion {
  std::size_t oy_begin = 0, oy_end = 0, ox_begin = 0, ox_end = 0;
  std::size_t ky_first = 0, ky_past = 0, kx_first = 0, kx_past = 0;
  std::size_t pack = 0;  // index into ConvRegionPlan::packs (meaningless when taps() == 0)
  std::size_t taps() const noexcept { return (ky_past - ky_first) * (kx_past - kx_first); }
  std::size_t rows() const noexcept { return oy_end - oy_begin; }
  std::size_t cols() const noexcept { return ox_end - ox_begin; }
};

struct ConvRegionPlan {
  std::vector<ConvTapRegion> regions;  // tile the output plane, row band by row band
  // Per distinct tap rectangle, per group: the weights of those taps as the product's A
  // (Cout/G x Cin/G*taps, columns ordered (c, ky, kx) like the reduced im2col rows).
  std::vector<std::vector<PackedA>> packs;
  std::size_t workspace_floats = 0;  // a region narrower than the plane is computed here first
  bool empty() const noexcept { return regions.empty(); }
};

// The plan for constant weights w [Cout, Cin/G, KH, KW] on `isa`, or an empty plan when the
// regions would not pay: some weight infinite or NaN (see above), the regions together doing
// more than half the products of the whole im2col product, more than kMaxConvRegions row band
// and column band pairs,
// or their packed weights holding more than kMaxConvRegionWeightCopies times the weights.
inline constexpr std::size_t kMaxConvRegions = 49;
inline constexpr std::size_t kMaxConvRegionWeightCopies = 3;
ConvRegionPlan conv2d_plan_regions(Isa isa, const Conv2dShape& shape, const float* w);

// conv2d_f32 with the plan's packs standing for the weights: the same bits (see above). x, bias,
// y and `activation` as conv2d_f32; `workspace` holds plan.workspace_floats floats.
void conv2d_f32_regions(const KernelContext& context, const Conv2dShape& shape, const ConvRegionPlan& plan,
                        const float* x, const float* bias, float* y, float* workspace,
                        const ConvActivation* activation = nullptr);

}  // namespace onemodel::opt
