// Shape rule of GlobalAveragePool and GlobalMaxPool (spec/ops/products-conv.md section 8.4): the
// input [N, C, spatial...] of rank 2 or more gives [N, C, 1, ...] with every spatial extent 1.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/shape.hpp"

namespace onemodel::pooling {

inline Shape global_output_shape(const NodeInfo& node, const Shape& x) {
  if (x.rank() < 2) node.fail_invalid("X must have rank 2 or more");
  std::vector<std::int64_t> out{x[0], x[1]};
  for (int i = 2; i < x.rank(); ++i) out.push_back(1);
  return Shape(std::span<const std::int64_t>(out));
}

}  // namespace onemodel::pooling
