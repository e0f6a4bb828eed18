// The captured outer values of a node's subgraphs (spec/values.md section 3).
#include <algorithm>
#include <unordered_set>

#include "core/graph/subgraph.hpp"

namespace onemodel {

std::vector<std::string> node_captures(const IrNode& node) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (const IrAttribute& attribute : node.attributes) {
    for (const IrGraph& graph : attribute.graphs) {
      for (const std::string& name : graph.captures) {
        if (seen.insert(name).second) names.push_back(name);
      }
    }
  }
  return names;
}

void append_capture_inputs(IrGraph& graph) {
  for (IrNode& node : graph.nodes) {
    const std::vector<std::string> captures = node_captures(node);
    node.inputs.insert(node.inputs.end(), captures.begin(), captures.end());
  }
}

std::size_t declared_input_count(const IrNode& node) {
  const std::size_t captured = node_captures(node).size();
  return node.inputs.size() >= captured ? node.inputs.size() - captured : 0;
}

}  // namespace onemodel
