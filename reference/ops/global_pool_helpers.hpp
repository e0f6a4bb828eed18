// Shape rule of GlobalAveragePool and GlobalMaxPool (spec/ops/products-conv.md section 8.4): the
// input [N, C, spatial...] of rank 2 or more gives [N, C, 1, ...] with every spatial extent 1.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::pooling {

inline Shape global_output_shape(const NodeInfo& node, const Shape& x) {
  if (x.rank() < 2) node.fail_invalid("X must have rank 2 or more");
  std::vector<std::int64_t> out{x[0], x[1]};
  for (int i = 2; i < x.rank(); ++i) out.push_back(1);
  return Shape(std::span<const std::int64_t>(out));
}

// Both operators reduce each [N, C] plane of X (all spatial elements, in row-major order) to one
// value: writes reduce(plane) to Y's element of that plane. T is float or double (the element type).
template <class T, class Reduce>
void reduce_planes(const Tensor& x_tensor, const Tensor& y_tensor, Reduce reduce) {
  const auto x = x_tensor.to_vector<T>();
  auto y = y_tensor.mutable_data<T>();
  const std::int64_t planes = static_cast<std::int64_t>(x_tensor.shape()[0]) * x_tensor.shape()[1];
  const std::int64_t size = planes == 0 ? 0 : x_tensor.element_count() / planes;
  for (std::int64_t p = 0; p < planes; ++p) {
    const std::span<const T> plane(x.data() + p * size, static_cast<std::size_t>(size));
    y[static_cast<std::size_t>(p)] = reduce(plane);
  }
}

}  // namespace onemodel::pooling
