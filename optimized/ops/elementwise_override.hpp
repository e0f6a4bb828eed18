// The shared shape of the element-wise overrides (optimized/ops/op_<name>.cpp): float32 inputs
// that are contiguous run the vectorized kernels of optimized/kernels/elementwise/; every other
// case (other element types, strided views) runs the node's reference kernel. Bits are the
// reference's in both modes (optimized/kernels/elementwise/elementwise.hpp).
#pragma once

#include <cstddef>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

// y = f(x) for a unary function with fixed arguments (spec/ops/elementwise.md section 8).
// The reference's in_place_input = 0 is kept: the kernel reads each element before writing it.
class UnaryF32Override : public OptimizedKernel {
 public:
  UnaryF32Override(const NodeInfo& node, const OptimizedConfig& config, ew::UnaryArgs args)
      : OptimizedKernel(node, config), args_(ew::for_mode(args, node.exact())) {}

  // The function this override applies (read by the elementwise-chain pass). Clip from opset 11
  // takes its bounds from inputs at run time: its args() are not its function.
  const ew::UnaryArgs& args() const noexcept { return args_; }

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::F32 || !x.is_contiguous()) return run_reference(context);
    run_with(context, args_);
  }

 protected:
  void run_with(RunContext& context, const ew::UnaryArgs& args) const {
    const Tensor& x = context.input(0);
    const Tensor& y = context.output(0);
    const std::size_t n = static_cast<std::size_t>(x.element_count());
    if (n == 0) return;
    ew::unary_f32(kernel_context(context), args, x.data<float>().data(), y.mutable_data<float>().data(), n);
  }

 private:
  ew::UnaryArgs args_;
};

// y = a op b with NumPy broadcasting (spec/ops/elementwise.md sections 1 and 2). The reference
// never lets the output share an input's memory (in_place_input = -1), so neither do we.
class BinaryF32Override final : public OptimizedKernel {
 public:
  BinaryF32Override(const NodeInfo& node, const OptimizedConfig& config, ew::BinaryOp op)
      : OptimizedKernel(node, config), op_(op) {}

  ew::BinaryOp op() const noexcept { return op_; }  // read by the elementwise-chain pass

  void run(RunContext& context) const override {
    const Tensor& a = context.input(0);
    const Tensor& b = context.input(1);
    if (a.dtype() != DType::F32 || b.dtype() != DType::F32 || !a.is_contiguous() || !b.is_contiguous()) {
      return run_reference(context);
    }
    const Tensor& y = context.output(0);
    if (y.element_count() == 0) return;
    ew::binary_f32(kernel_context(context), op_, a.data<float>().data(), a.shape().extents(), b.data<float>().data(),
                   b.shape().extents(), y.mutable_data<float>().data(), y.shape().extents());
  }

 private:
  ew::BinaryOp op_;
};

}  // namespace onemodel::opt
