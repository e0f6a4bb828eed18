#include "reference/ops/operator_listing.hpp"

#include <exception>

#include "core/graph/op_kernel.hpp"

namespace onemodel {

std::string operators_tsv() {
  std::string out = "domain\toperator\tfirst_opset\tlast_opset\telement_types\texact\n";
  for (const OpDef& def : all_ops()) {
    IrNode node;
    node.op_type = def.op_type;
    node.domain = def.domain;
    std::string exact;
    try {
      const auto kernel = def.factory(NodeInfo(node, def.min_opset, ExecutionMode::Exact));
      // except-F64: exact for every listed type but float64 (OpKernel::float64_exact).
      exact = !kernel->supports_exact ? "no" : kernel->float64_exact ? "yes" : "except-F64";
    } catch (const std::exception&) {
      exact = "attribute-dependent";
    }
    out += std::string(*def.domain ? def.domain : "ai.onnx") + "\t" + def.op_type + "\t" +
           std::to_string(def.min_opset) + "\t" + std::to_string(def.max_opset) + "\t" +
           (def.element_types ? def.element_types : "unstated") + "\t" + exact + "\n";
  }
  return out;
}

}  // namespace onemodel
