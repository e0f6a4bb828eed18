// What the Conv and ConvTranspose overrides (op_conv.cpp, op_conv_transpose.cpp) share: the plan
// holding one input shape's resolved 2-D geometry, the Conv2dShape built from the resolved
// (height, width) axes (products-conv.md section 3 for Conv, section 7 for ConvTranspose), and the
// kernel workspace taken from the run's scratch memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "optimized/kernels/conv/conv2d_regions.hpp"
#include "optimized/kernels/conv/conv2d_taps.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt::conv_override {

// The geometry is resolved once per plan (the input shapes are known then), so a run does not
// allocate; without a plan's state run() resolves it itself (plan_for).
struct Plan {
  bool served = false;  // one or two spatial axes
  Conv2dShape shape;
  // Conv only: constant float32 weights of an im2col convolution packed once per group as the
  // product's A (conv2d_pack_weights; kernels-gemm.md "Convolution"), so runs do not re-pack
  // them. Empty otherwise (variable W, depthwise, ConvTranspose): the kernels read W.
  std::vector<PackedA> packed_weights;
  // Conv only: for constant finite weights whose windows mostly reach padding, the products per
  // tap region (conv2d_regions.hpp), which then stand for packed_weights (left empty).
  ConvRegionPlan regions;
  // Conv only, fast mode: the same convolutions tap by tap (conv2d_taps.hpp), each weight read once
  // a call, standing for `regions` and packed_weights (left empty).
  ConvTapPlan taps;
  // Conv only: for constant float32 weights of a convolution the direct kernel takes on the
  // AVX-512 path (conv_stem_takes), its layout (conv_stem.hpp), standing for the two above, which
  // are then left empty: every run of the plan takes the direct kernel.
  std::vector<float> stem_weights;
  // Conv only, fast mode: for constant float32 weights of a 3x3 convolution winograd_takes serves,
  // the sixteen transformed filter matrices (winograd.hpp), standing for all of the above.
  std::vector<PackedA> winograd_weights;
  // A plan belongs to one input shape; this guards against being handed another.
  bool matches(const Shape& x) const {
    if (!served) return x.rank() != 3 && x.rank() != 4;
    const int r = x.rank();
    return static_cast<std::size_t>(x[0]) == shape.batch && static_cast<std::size_t>(x[1]) == shape.in_channels &&
           static_cast<std::size_t>(x[r - 1]) == shape.in_w && (r == 3 ? shape.in_h == 1 : static_cast<std::size_t>(x[2]) == shape.in_h);
  }
};

// The run's plan when it matches the input, else one resolved into `local` by
// resolve(x_shape, w_shape, shape) -> served.
template <class Resolve>
const Plan& plan_for(RunContext& context, Plan& local, Resolve resolve) {
  const Plan* plan = static_cast<const Plan*>(context.state());
  if (plan == nullptr || !plan->matches(context.input(0).shape())) {
    local.served = resolve(context.input(0).shape(), context.input(1).shape(), local.shape);
    plan = &local;
  }
  return *plan;
}

// The Conv2dShape of input x (N, C, ...) from the resolved height and width axes.
inline Conv2dShape shape_from_axes(const Shape& x, std::size_t out_channels, std::int64_t group,
                                   const conv_geometry::Axis& h, const conv_geometry::Axis& w) {
  Conv2dShape s;
  s.batch = static_cast<std::size_t>(x[0]);
  s.in_channels = static_cast<std::size_t>(x[1]);
  s.out_channels = out_channels;
  s.groups = static_cast<std::size_t>(group);
  s.in_h = static_cast<std::size_t>(h.in);
  s.in_w = static_cast<std::size_t>(w.in);
  s.kernel_h = static_cast<std::size_t>(h.kernel);
  s.kernel_w = static_cast<std::size_t>(w.kernel);
  s.stride_h = static_cast<std::size_t>(h.stride);
  s.stride_w = static_cast<std::size_t>(w.stride);
  s.dilation_h = static_cast<std::size_t>(h.dilation);
  s.dilation_w = static_cast<std::size_t>(w.dilation);
  s.pad_top = static_cast<std::size_t>(h.pad_before);
  s.pad_left = static_cast<std::size_t>(w.pad_before);
  s.out_h = static_cast<std::size_t>(h.out);
  s.out_w = static_cast<std::size_t>(w.out);
  return s;
}

// `floats` floats of scratch memory for a kernel's workspace, kept alive by `scratch`; nullptr
// when the kernel needs none.
inline float* workspace(RunContext& context, std::size_t floats, Tensor& scratch) {
  if (floats == 0) return nullptr;
  scratch = context.scratch(DType::F32, Shape{static_cast<std::int64_t>(floats)});
  return scratch.mutable_data<float>().data();
}

}  // namespace onemodel::opt::conv_override
