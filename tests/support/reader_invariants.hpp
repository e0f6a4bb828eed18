// Invariants of what the model readers return, shared by the fuzz targets (fuzz/) and the
// property tests (tests/unit/reader_property_test.cpp): resolution results that hold together,
// and what the OneModel format can and cannot carry of an imported ONNX model (spec/format.md
// sections 2.2, 2.7 and 3.1; spec/dump.md section 10). Header-only, so the fuzz targets need
// not link the test support library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "onemodel/ir.hpp"

namespace onemodel::testing {

// spec/onnx-import.md section 4, checked lightly: `order` is a permutation of the node indices,
// the identity unless nodes_were_reordered; every value names itself in `value_index`, its source
// index is in range, its consumers are distinct nodes; a node output read in the same graph is
// produced earlier in `order`. Recurses into subgraphs. Returns the first problem, or "".
inline std::string resolution_problem(const IrGraph& g, int depth = 0) {
  if (depth > 300) return "graph nesting beyond any reader's limit";
  const std::size_t n = g.nodes.size();
  if (g.order.size() != n) return "order has a different size from nodes in graph \"" + g.name + "\"";
  std::vector<std::size_t> position(n, n);
  bool identity = true;
  for (std::size_t k = 0; k < n; ++k) {
    const std::int32_t i = g.order[k];
    if (i < 0 || static_cast<std::size_t>(i) >= n) return "order entry out of range";
    if (position[static_cast<std::size_t>(i)] != n) return "order repeats a node";
    position[static_cast<std::size_t>(i)] = k;
    if (static_cast<std::size_t>(i) != k) identity = false;
  }
  if (g.nodes_were_reordered == identity) return "nodes_were_reordered disagrees with order";
  if (g.value_index.size() != g.values.size()) return "value_index and values differ in size";
  for (const auto& [name, index] : g.value_index) {
    if (index < 0 || static_cast<std::size_t>(index) >= g.values.size()) return "value_index out of range: " + name;
    if (g.values[static_cast<std::size_t>(index)].name != name) return "value_index names another value: " + name;
  }
  for (const IrValue& v : g.values) {
    const auto in = [&](std::size_t size) { return v.index >= 0 && static_cast<std::size_t>(v.index) < size; };
    switch (v.source) {
      case IrValue::Source::Input:
        if (!in(g.inputs.size())) return "input index out of range: " + v.name;
        break;
      case IrValue::Source::Initializer:
        if (!in(g.initializers.size())) return "initializer index out of range: " + v.name;
        break;
      case IrValue::Source::SparseInitializer:
        if (!in(g.sparse_initializers.size())) return "sparse initializer index out of range: " + v.name;
        break;
      case IrValue::Source::NodeOutput: {
        if (!in(n)) return "producer index out of range: " + v.name;
        const IrNode& producer = g.nodes[static_cast<std::size_t>(v.index)];
        if (v.output_slot < 0 || static_cast<std::size_t>(v.output_slot) >= producer.outputs.size() ||
            producer.outputs[static_cast<std::size_t>(v.output_slot)] != v.name) {
          return "output slot does not name the value: " + v.name;
        }
        break;
      }
    }
    std::unordered_set<std::int32_t> seen;
    for (std::int32_t c : v.consumers) {
      if (c < 0 || static_cast<std::size_t>(c) >= n) return "consumer out of range: " + v.name;
      if (!seen.insert(c).second) return "consumer listed twice: " + v.name;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::string& input : g.nodes[i].inputs) {
      if (input.empty()) continue;
      const auto it = g.value_index.find(input);
      if (it == g.value_index.end()) continue;  // an outer value (a capture)
      const IrValue& v = g.values[static_cast<std::size_t>(it->second)];
      if (v.source != IrValue::Source::NodeOutput) continue;
      if (position[static_cast<std::size_t>(v.index)] >= position[i]) return "a node reads a value produced after it: " + input;
    }
    for (const IrAttribute& a : g.nodes[i].attributes) {
      for (const IrGraph& sub : a.graphs) {
        std::string problem = resolution_problem(sub, depth + 1);
        if (!problem.empty()) return problem;
      }
    }
  }
  return {};
}

// spec/format.md section 3.1: graphs and types open at once. A graph in an attribute is one more
// than its graph, a type one more than the graph or type around it; the top graph is 1 and a
// function's nodes are at 0. The ONNX reader's limit (128 protobuf messages) lets deeper models
// through, which the format then refuses as Unsupported.
inline int type_depth(const IrType& t, int depth) {
  int deepest = depth;
  for (const IrType& inner : t.inner) deepest = std::max(deepest, type_depth(inner, depth + 1));
  return deepest;
}
inline int graph_depth(const IrGraph& g, int depth);
inline int attributes_depth(const std::vector<IrAttribute>& attributes, int graph_level) {
  int deepest = graph_level;
  for (const IrAttribute& a : attributes) {
    for (const IrGraph& sub : a.graphs) deepest = std::max(deepest, graph_depth(sub, graph_level + 1));
    for (const IrType& t : a.type_protos) deepest = std::max(deepest, type_depth(t, graph_level + 1));
  }
  return deepest;
}
inline int graph_depth(const IrGraph& g, int depth) {
  int deepest = depth;
  for (const auto* list : {&g.inputs, &g.outputs, &g.value_info}) {
    for (const IrValueInfo& v : *list) {
      if (v.type.kind != IrType::Kind::None) deepest = std::max(deepest, type_depth(v.type, depth + 1));
    }
  }
  for (const IrNode& node : g.nodes) deepest = std::max(deepest, attributes_depth(node.attributes, depth));
  return deepest;
}
inline int format_nesting(const IrModel& m) {
  int deepest = graph_depth(m.graph, 1);
  for (const IrFunction& f : m.functions) {
    deepest = std::max(deepest, attributes_depth(f.attribute_defaults, 0));
    for (const IrNode& node : f.nodes) deepest = std::max(deepest, attributes_depth(node.attributes, 0));
  }
  return deepest;
}

// spec/format.md section 2.7: every Type object has a `kind`, and sequences, optionals and maps
// have an `inner` Type; a TypedName's `type` may be absent. So "no type" (a TypeProto with no
// member, spec/onnx-import.md section 2) has no encoding inside another type or as a TYPE_PROTO
// attribute value, and such a model cannot be written in the format.
inline bool type_has_unwritable_none(const IrType& t) {
  for (const IrType& inner : t.inner) {
    if (inner.kind == IrType::Kind::None || type_has_unwritable_none(inner)) return true;
  }
  return false;
}
inline bool graph_has_unwritable_none(const IrGraph& g);
inline bool attributes_have_unwritable_none(const std::vector<IrAttribute>& attributes) {
  for (const IrAttribute& a : attributes) {
    if (!a.ref_attr_name.empty()) continue;
    for (const IrType& t : a.type_protos) {
      if (t.kind == IrType::Kind::None || type_has_unwritable_none(t)) return true;
    }
    for (const IrGraph& sub : a.graphs) {
      if (graph_has_unwritable_none(sub)) return true;
    }
  }
  return false;
}
inline bool graph_has_unwritable_none(const IrGraph& g) {
  for (const auto* list : {&g.inputs, &g.outputs, &g.value_info}) {
    for (const IrValueInfo& v : *list) {
      if (type_has_unwritable_none(v.type)) return true;
    }
  }
  for (const IrNode& node : g.nodes) {
    if (attributes_have_unwritable_none(node.attributes)) return true;
  }
  return false;
}
inline bool model_has_unwritable_none(const IrModel& m) {
  if (graph_has_unwritable_none(m.graph)) return true;
  for (const IrFunction& f : m.functions) {
    if (attributes_have_unwritable_none(f.attribute_defaults)) return true;
    for (const IrNode& node : f.nodes) {
      if (attributes_have_unwritable_none(node.attributes)) return true;
    }
  }
  return false;
}

// spec/dump.md section 10: the format has no doc string for graph inputs, outputs and
// value_info entries, so a converted model's dump lacks exactly those. This clears them.
inline void clear_value_info_docs(IrGraph& g);
inline void clear_value_info_docs(std::vector<IrAttribute>& attributes) {
  for (IrAttribute& a : attributes) {
    for (IrGraph& sub : a.graphs) clear_value_info_docs(sub);
  }
}
inline void clear_value_info_docs(IrGraph& g) {
  for (auto* list : {&g.inputs, &g.outputs, &g.value_info}) {
    for (IrValueInfo& v : *list) v.doc_string.clear();
  }
  for (IrNode& node : g.nodes) clear_value_info_docs(node.attributes);
}
inline IrModel as_converted(IrModel model) {
  clear_value_info_docs(model.graph);
  for (IrFunction& f : model.functions) {
    clear_value_info_docs(f.attribute_defaults);
    for (IrNode& node : f.nodes) clear_value_info_docs(node.attributes);
  }
  return model;
}

}  // namespace onemodel::testing
