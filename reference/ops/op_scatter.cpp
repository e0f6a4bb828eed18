// Scatter (opsets 9 and 10; deprecated from 11 in favour of ScatterElements, which ONNX says
// "provides the same functionality"): the ScatterElements kernel without a reduction
// (spec/ops/shape-indexing.md section 2, Scatter and ScatterElements). Scatter has no `reduction`
// attribute: one given is InvalidModel rather than silently honoured.
#include "core/graph/op_kernel.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_scatter_elements(const NodeInfo& node);

std::unique_ptr<OpKernel> make_scatter(const NodeInfo& node) {
  if (node.has("reduction")) node.fail_invalid("Scatter has no 'reduction' attribute (ScatterElements 16 has)");
  return make_scatter_elements(node);
}

}  // namespace onemodel
