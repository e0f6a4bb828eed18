// Shared glue of the float32 pooling overrides (optimized/kernels/pool/): MaxPool and AveragePool
// on rank-4 input run pool_2d_f32 with the geometry the reference resolves
// (reference/ops/pool_window.hpp, so pads, auto_pad, strides, dilations and ceil_mode are read by
// the same code); GlobalAveragePool and GlobalMaxPool run global_pool_f32 on the contiguous planes.
// Everything else (other element types, 1-D and 3-D windows, strided views, negative pads) runs
// the reference kernel.
#pragma once

#include <memory>

#include "optimized/kernels/pool/pool.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/pool_window.hpp"

namespace onemodel::opt {

class Pool2dOverride final : public OptimizedKernel {
 public:
  Pool2dOverride(const NodeInfo& node, const OptimizedConfig& config, pool::PoolKind kind)
      : OptimizedKernel(node, config),
        kind_(kind),
        window_(conv_geometry::read_window_attributes(node, true)),
        count_include_pad_(kind == pool::PoolKind::Average && node.get_int("count_include_pad", 0) != 0) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    // MaxPool's Indices output, other element types and other ranks: the reference.
    if (x.dtype() != DType::F32 || x.shape().rank() != 4 || !x.is_contiguous() ||
        (kind_ == pool::PoolKind::Max && context.output_wanted(1))) {
      return run_reference(context);
    }
    // The geometry resolved at plan time for this input shape (prepare), else resolved now: the
    // resolution builds vectors, and a warm run allocates nothing (graph-runtime.md section 4).
    const auto* prepared = static_cast<const PreparedGeometry*>(context.state());
    const pool::Pool2dShape shape =
        prepared != nullptr && prepared->x == x.shape() ? prepared->shape : geometry(context.node(), x.shape());
    if (shape.h.pad_before < 0 || shape.w.pad_before < 0) return run_reference(context);
    const Tensor& y = context.output(0);
    if (y.element_count() == 0) return;
    pool::pool_2d_f32(kernel_context(context), kind_, shape, x.element_count() == 0 ? nullptr : x.data<float>().data(),
                      y.mutable_data<float>().data());
  }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    if (!context.has_input(0) || context.input_type(0) != DType::F32 || context.input_shape(0).rank() != 4) {
      return nullptr;
    }
    auto prepared = std::make_shared<PreparedGeometry>();
    prepared->x = context.input_shape(0);
    prepared->shape = geometry(context.node(), prepared->x);
    return prepared;
  }

 private:
  struct PreparedGeometry {
    Shape x;
    pool::Pool2dShape shape;
  };

  pool::Pool2dShape geometry(const NodeInfo& node, const Shape& x) const {
    const auto g = pooling::pool_geometry(node, window_, x);
    pool::Pool2dShape shape;
    shape.planes = g.n * g.c;
    shape.h = axis(g.axes[1]);
    shape.w = axis(g.axes[2]);
    shape.count_include_pad = count_include_pad_;
    return shape;
  }

  static pool::PoolAxis axis(const conv_geometry::Axis& a) noexcept {
    return {a.in, a.out, a.kernel, a.stride, a.dilation, a.pad_before, a.pad_after};
  }

  pool::PoolKind kind_;
  conv_geometry::WindowAttributes window_;
  bool count_include_pad_;
};

class GlobalPoolOverride final : public OptimizedKernel {
 public:
  GlobalPoolOverride(const NodeInfo& node, const OptimizedConfig& config, pool::PoolKind kind)
      : OptimizedKernel(node, config), kind_(kind) {}

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::F32 || x.shape().rank() < 2 || !x.is_contiguous()) return run_reference(context);
    // Planes and plane size as reference/ops/global_pool_helpers.hpp forms them.
    const std::int64_t planes = x.shape()[0] * x.shape()[1];
    if (planes == 0) return;
    const std::int64_t size = x.element_count() / planes;
    pool::global_pool_f32(kernel_context(context), kind_, size == 0 ? nullptr : x.data<float>().data(),
                          context.output(0).mutable_data<float>().data(), static_cast<std::size_t>(planes),
                          static_cast<std::size_t>(size));
  }

 private:
  pool::PoolKind kind_;
};

}  // namespace onemodel::opt
