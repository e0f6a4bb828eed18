#include "core/ir/node_order.hpp"

#include <cstddef>
#include <functional>
#include <queue>

namespace onemodel {

namespace {

using Index = std::int32_t;

// spec/graph-resolution.md section 5: file order is kept when every value a node reads is
// produced by an earlier node (or is not produced by a node at all).
bool already_ordered(const NodeDependencies& deps) {
  for (Index n = 0; n < deps.node_count; ++n) {
    for (Index k = deps.dep_begin[n]; k < deps.dep_begin[n + 1]; ++k) {
      if (deps.producer[deps.dep_value[k]] >= n) return false;
    }
  }
  return true;
}

// Every node left over by the sort still waits for a value whose producer was not taken.
// Following such a value from node to node must revisit a node; the nodes between the two
// visits form a cycle, and the smallest file index among them is reported (deterministic).
Index find_cycle_node(const NodeDependencies& deps, const std::vector<char>& taken) {
  Index start = 0;
  while (taken[start]) ++start;
  auto next_blocker = [&](Index n) -> Index {
    for (Index k = deps.dep_begin[n]; k < deps.dep_begin[n + 1]; ++k) {
      const Index p = deps.producer[deps.dep_value[k]];
      if (p >= 0 && !taken[p]) return p;
    }
    return -1;  // unreachable: a node not taken has a producer not taken
  };
  std::vector<char> seen(static_cast<std::size_t>(deps.node_count), 0);
  Index cur = start;
  while (cur >= 0 && !seen[cur]) {
    seen[cur] = 1;
    cur = next_blocker(cur);
  }
  if (cur < 0) return start;
  Index smallest = cur;
  for (Index n = next_blocker(cur); n >= 0 && n != cur; n = next_blocker(n)) {
    if (n < smallest) smallest = n;
  }
  return smallest;
}

}  // namespace

NodeOrder order_nodes(const NodeDependencies& deps) {
  NodeOrder result;
  const Index count = deps.node_count;
  result.order.reserve(static_cast<std::size_t>(count));
  if (already_ordered(deps)) {
    for (Index n = 0; n < count; ++n) result.order.push_back(n);
    return result;
  }
  result.reordered = true;

  // Readers of each value (reverse of dep_value), as a compact table.
  const std::size_t value_count = deps.producer.size();
  std::vector<Index> reader_begin(value_count + 1, 0);
  for (Index v : deps.dep_value) ++reader_begin[static_cast<std::size_t>(v) + 1];
  for (std::size_t v = 0; v < value_count; ++v) reader_begin[v + 1] += reader_begin[v];
  std::vector<Index> readers(deps.dep_value.size());
  {
    std::vector<Index> fill(reader_begin.begin(), reader_begin.end() - 1);
    for (Index n = 0; n < count; ++n) {
      for (Index k = deps.dep_begin[n]; k < deps.dep_begin[n + 1]; ++k) {
        readers[fill[deps.dep_value[k]]++] = n;
      }
    }
  }
  // Values each node produces, as a compact table.
  std::vector<Index> out_begin(static_cast<std::size_t>(count) + 1, 0);
  for (Index p : deps.producer) {
    if (p >= 0) ++out_begin[static_cast<std::size_t>(p) + 1];
  }
  for (Index n = 0; n < count; ++n) out_begin[n + 1] += out_begin[n];
  std::vector<Index> outputs(static_cast<std::size_t>(out_begin[count]));
  {
    std::vector<Index> fill(out_begin.begin(), out_begin.end() - 1);
    for (std::size_t v = 0; v < value_count; ++v) {
      const Index p = deps.producer[v];
      if (p >= 0) outputs[fill[p]++] = static_cast<Index>(v);
    }
  }

  // pending[n]: values node n reads that a node not yet taken produces.
  std::vector<Index> pending(static_cast<std::size_t>(count), 0);
  std::priority_queue<Index, std::vector<Index>, std::greater<Index>> ready;
  for (Index n = 0; n < count; ++n) {
    for (Index k = deps.dep_begin[n]; k < deps.dep_begin[n + 1]; ++k) {
      if (deps.producer[deps.dep_value[k]] >= 0) ++pending[n];
    }
    if (pending[n] == 0) ready.push(n);
  }
  std::vector<char> taken(static_cast<std::size_t>(count), 0);
  while (!ready.empty()) {
    const Index n = ready.top();
    ready.pop();
    taken[n] = 1;
    result.order.push_back(n);
    for (Index o = out_begin[n]; o < out_begin[n + 1]; ++o) {
      const Index v = outputs[o];
      for (Index r = reader_begin[v]; r < reader_begin[v + 1]; ++r) {
        if (--pending[readers[r]] == 0) ready.push(readers[r]);
      }
    }
  }
  if (static_cast<Index>(result.order.size()) < count) {
    result.cycle_node = find_cycle_node(deps, taken);
  }
  return result;
}

}  // namespace onemodel
