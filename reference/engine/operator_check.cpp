#include "reference/engine/operator_check.hpp"

#include <algorithm>
#include <string>

#include "core/graph/half_adapter.hpp"
#include "onemodel/session_error.hpp"
#include "reference/engine/input_signatures.hpp"

namespace onemodel {
namespace {

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// Walks the graph and every subgraph (attributes of type Graph and Graphs), in node order.
void collect_missing(const IrGraph& graph, std::vector<std::string>& missing) {
  for (const IrNode& node : graph.nodes) {
    if (find_op(node.domain, node.op_type, node.opset) == nullptr) {
      add_unique(missing, operator_display_name(node) + " (opset " + std::to_string(node.opset) + ")");
    }
    for (const IrAttribute& attribute : node.attributes) {
      for (const IrGraph& sub : attribute.graphs) collect_missing(sub, missing);
    }
  }
}

}  // namespace

std::string operator_display_name(const IrNode& node) {
  if (node.domain.empty() || node.domain == "ai.onnx") return node.op_type;
  return node.domain + "." + node.op_type;
}

std::vector<std::unique_ptr<OpKernel>> make_kernels(const IrGraph& graph, const SessionOptions& options,
                                                    const SubgraphCompiler* subgraphs) {
  return make_kernels(graph, options, KernelMaker(), HalfAdapterOptions(), subgraphs);
}

std::vector<std::unique_ptr<OpKernel>> make_kernels(const IrGraph& graph, const SessionOptions& options,
                                                    const KernelMaker& maker, const HalfAdapterOptions& half_options,
                                                    const SubgraphCompiler* subgraphs) {
  std::vector<std::string> missing;
  collect_missing(graph, missing);
  if (!missing.empty()) {
    std::string message = "no kernel for " + std::to_string(missing.size()) + " operator" +
                          (missing.size() == 1 ? "" : "s") + ":";
    for (const auto& m : missing) message += " " + m + (&m == &missing.back() ? "" : ",");
    throw SessionError(SessionErrorKind::UnsupportedOperator, message, {}, missing);
  }
  // spec/errors.md section 3.1: every required input present and not "", for every node, before
  // any factory or shaping sees it (issue 11, defect 2).
  for (const IrNode& node : graph.nodes) check_required_inputs(node);
  std::vector<std::unique_ptr<OpKernel>> kernels;
  kernels.reserve(graph.nodes.size());
  std::vector<std::string> not_exact;
  // spec/half-precision.md section 8: the scan for 16-bit floating types, then the adapter
  // around each kernel that needs one.
  const HalfScan half = scan_half_precision(graph);
  for (const IrNode& node : graph.nodes) {
    const OpDef* def = find_op(node.domain, node.op_type, node.opset);
    NodeInfo info(node, node.opset, options.mode);
    info.set_subgraphs(subgraphs);
    std::unique_ptr<OpKernel> kernel = maker ? maker(info) : nullptr;
    if (!kernel) kernel = def->factory(info);
    kernels.push_back(adapt_for_half_precision(std::move(kernel), graph, node, half, def->element_types, half_options));
    if (options.mode == ExecutionMode::Exact && !kernels.back()->supports_exact) {
      add_unique(not_exact, operator_display_name(node));
    }
  }
  if (!not_exact.empty()) {
    std::string message = "exact mode is not available for:";
    for (const auto& m : not_exact) message += " " + m + (&m == &not_exact.back() ? "" : ",");
    throw SessionError(SessionErrorKind::ExactModeUnavailable, message, {}, not_exact);
  }
  return kernels;
}

}  // namespace onemodel
