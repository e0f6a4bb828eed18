// NumPy-style broadcasting for the element-wise operators (spec/ops/elementwise.md section 2):
// the output shape of several inputs, and an input's elements read in the row-major order of
// the output shape (a broadcast view with stride 0 on the stretched axes, copied out).
#pragma once

#include <initializer_list>
#include <vector>

#include "core/graph/op_kernel.hpp"

namespace onemodel::ew {

// The broadcast shape of the given present inputs, folded left to right. Shapes that do not
// broadcast are InvalidModel naming the node.
Shape broadcast_inputs(const InferContext& context, std::initializer_list<std::size_t> inputs);
Shape broadcast_all_inputs(const InferContext& context);

// The elements of `tensor` broadcast to `shape`, row-major, as their storage type S.
template <class S>
std::vector<S> read_broadcast(const Tensor& tensor, const Shape& shape) {
  return tensor.expand(shape).to_vector<S>();
}

}  // namespace onemodel::ew
