// Dependency order of one graph's nodes (spec/graph-resolution.md section 5).
#pragma once

#include <cstdint>
#include <vector>

namespace onemodel {

// What each node reads, as indices into the graph's values, and which node produces each value.
struct NodeDependencies {
  std::int32_t node_count = 0;
  // Node i reads values dep_value[dep_begin[i] .. dep_begin[i + 1]), each value at most once.
  std::vector<std::int32_t> dep_begin;
  std::vector<std::int32_t> dep_value;
  // For each value, the node that produces it, or -1 (inputs and initializers).
  std::vector<std::int32_t> producer;
};

struct NodeOrder {
  std::vector<std::int32_t> order;  // complete when cycle_node < 0
  bool reordered = false;
  std::int32_t cycle_node = -1;     // a node that lies on a dependency cycle
};

// Keeps the file order when it already is a dependency order; otherwise repeatedly takes the
// ready node with the smallest file index. O((nodes + reads) log nodes).
NodeOrder order_nodes(const NodeDependencies& deps);

}  // namespace onemodel
