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

// y = a op b with NumPy broadcasting (spec/ops/elementwise.md sections 1 and 2).
//
// Output 0 may take input a's block, or b's when a's cannot be taken (in_place_input = 0,
// in_place_second = 1), which the reference never allows (spec/optimized-engine.md section 4
// rule 3). The planner grants it only when that input's block dies at this node, is shared by no
// other value, holds the same element type and is at least the output's size (plan.cpp); a
// broadcast operand never has as many elements as the output unless its shape is the output's
// (leading 1s aside), so that operand is then read at the very index each output is written to.
// Every path reads an element before writing it there: the lane loops load each vector of a and
// b before the store (lane_loops.hpp map_binary), threads write disjoint ranges of the indices
// they read, and the reference kernel this falls back to reads a.next() and b.next() before
// writing o[i]. The other operand is another value (a broadcast one is read, never written), or
// the same one (then also read at the same index). Bits do not change; what changes is that the
// output lands in lines the input just brought into cache instead of a block last touched a run
// ago (EfficientNet-B0's first squeeze-and-excitation Mul, scale * x over 32 x 112 x 112, took
// 119-155 us in the model against 40 alone).
class BinaryF32Override final : public OptimizedKernel {
 public:
  BinaryF32Override(const NodeInfo& node, const OptimizedConfig& config, ew::BinaryOp op)
      : OptimizedKernel(node, config), op_(op) {
    in_place_input = 0;
    in_place_second = 1;
  }

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
