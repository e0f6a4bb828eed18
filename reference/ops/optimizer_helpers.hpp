// Shared reading of the training optimizers Adagrad, Momentum and Adam (domain
// ai.onnx.preview.training, version 1; spec/ops/training.md section 1): the scalars R and T, then
// k groups of tensors of one shape each (X_1..X_n, G_1..G_n, ...), the outputs in the same
// grouping.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel::optimizers {

using Types = ew::Types<ew::F32, ew::F64>;

// The number n of optimized tensors for `groups` groups of inputs after R and T, checked.
inline std::size_t tensor_count(const NodeInfo& node, std::size_t inputs, std::size_t groups) {
  if (inputs < 2 + groups || (inputs - 2) % groups != 0) {
    node.fail_invalid("needs R, T and " + std::to_string(groups) + " tensors per optimized tensor, got " +
                      std::to_string(inputs) + " inputs");
  }
  return (inputs - 2) / groups;
}

// Shaping: R a float scalar, T an int64 scalar, every tensor of a group the type and shape of its
// X; output g * n + i is group g's tensor i (X_new, then the state outputs).
inline std::size_t infer_optimizer(InferContext& context, std::size_t groups) {
  const NodeInfo& node = context.node();
  const std::size_t n = tensor_count(node, context.input_count(), groups);
  for (std::size_t i = 0; i < context.input_count(); ++i) {
    if (!context.has_input(i)) node.fail_invalid("input " + std::to_string(i) + " is omitted; every input is required");
  }
  context.require_type(0, {DType::F32, DType::F64});
  context.require_type(1, {DType::I64});
  if (context.input_shape(0).element_count() != 1) node.fail_invalid("R must be a scalar");
  if (context.input_shape(1).element_count() != 1) node.fail_invalid("T must be a scalar");
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t x = 2 + i;
    ew::require(context, x, Types{});
    for (std::size_t g = 1; g < groups; ++g) {
      const std::size_t other = 2 + g * n + i;
      if (context.input_type(other) != context.input_type(x) || !(context.input_shape(other) == context.input_shape(x))) {
        node.fail_invalid("input " + std::to_string(other) + " must have the type and shape of X_" + std::to_string(i + 1) +
                          " " + context.input_shape(x).to_string());
      }
    }
  }
  const std::size_t out_groups = context.output_count() / (n == 0 ? 1 : n);
  if (context.output_count() % n != 0 || out_groups < 1 || out_groups > groups) {
    node.fail_invalid("the outputs must be the new X and state tensors, " + std::to_string(n) + " per group");
  }
  for (std::size_t o = 0; o < context.output_count(); ++o) {
    if (context.output_wanted(o)) context.set_output(o, context.input_type(2 + o % n), context.input_shape(2 + o % n));
  }
  return n;
}

// R as the element type's value, T as an integer.
template <class V>
V scalar_r(const Tensor& r) {
  const Tensor c = r.contiguous();
  return c.dtype() == DType::F32 ? static_cast<V>(c.data<float>()[0]) : static_cast<V>(c.data<double>()[0]);
}
inline std::int64_t scalar_t(const Tensor& t) { return t.contiguous().data<std::int64_t>()[0]; }

}  // namespace onemodel::optimizers
