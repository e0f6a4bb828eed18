// Graph resolution: spec/graph-resolution.md (from spec-source onnx-import.md section 4 and
// format.md section 3). The graphs are walked with an explicit stack of frames, not by recursion,
// so that deeply nested subgraphs cannot exhaust the call stack.
#include "core/ir/resolve.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/ir/field_path.hpp"
#include "core/ir/node_order.hpp"
#include "onemodel/error.hpp"

namespace onemodel {

namespace {

using Index = std::int32_t;

// One graph being resolved, and where the walk over its nodes stands.
struct Frame {
  IrGraph* graph = nullptr;
  std::size_t node = 0;     // the node being visited
  std::size_t attr = 0;     // its attribute being visited
  std::size_t sub = 0;      // subgraphs of that attribute already entered
  bool node_started = false;
  // (node, value) pairs: node reads a value of this graph (directly or through a subgraph).
  std::vector<std::pair<Index, Index>> reads;
  std::unordered_set<std::string> captured;  // the names in graph->captures
};

// How many subgraphs an attribute holds: spec/graph-resolution.md section 2, a Graph attribute
// keeps its one graph in element 0, a Graphs attribute all of its elements.
std::size_t subgraph_count(const IrAttribute& attr) {
  if (attr.type == AttrType::Graph) return attr.graphs.empty() ? 0 : 1;
  if (attr.type == AttrType::Graphs) return attr.graphs.size();
  return 0;
}

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string describe_node(const IrNode& node, std::size_t index) {
  std::string text = "node ";
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on `"#" + std::to_string(...)`.
  if (node.name.empty()) {
    text += '#';
    text += std::to_string(index);
  } else {
    text += quoted(node.name);
  }
  text += " (" + (node.domain.empty() ? std::string() : node.domain + ".") + node.op_type + ")";
  return text;
}

class Resolver {
 public:
  Resolver(IrModel& model, FieldPathStyle style)
      : model_(model), names_(field_names(style)) {
    // spec/graph-resolution.md section 4: "" and "ai.onnx" are one domain; the first import
    // of a domain is the one used.
    for (const IrOpset& opset : model.opset_imports) {
      opsets_.emplace(canonical_domain(opset.domain), opset.version);
    }
  }

  void run() {
    enter(&model_.graph);
    while (!frames_.empty()) step();
  }

 private:
  static std::string canonical_domain(const std::string& domain) {
    return domain == "ai.onnx" ? std::string() : domain;
  }

  [[noreturn]] void fail(const std::string& message, const std::string& path) const {
    throw ModelError(ModelErrorKind::InvalidModel, message, model_.source_name, std::nullopt, path);
  }

  // The field path of the graph in frames_[depth], rebuilt from the positions of the frames
  // around it (only when an error is reported).
  std::string graph_path(std::size_t depth) const {
    std::string path = names_.root;
    for (std::size_t d = 0; d < depth; ++d) {
      const Frame& f = frames_[d];
      const IrAttribute& attr = f.graph->nodes[f.node].attributes[f.attr];
      append_indexed(path, names_.node, f.node);
      append_indexed(path, names_.attribute, f.attr);
      if (attr.type == AttrType::Graph) {
        path += '.';
        path += names_.graph_attribute;
      } else {
        append_indexed(path, names_.graphs_attribute, f.sub - 1);
      }
    }
    return path;
  }
  std::string field(const char* list, std::size_t index) const {
    std::string path = graph_path(frames_.size() - 1);
    append_indexed(path, list, index);
    return path;
  }
  std::string node_field(std::size_t node, const char* list, std::size_t index) const {
    std::string path = graph_path(frames_.size() - 1);
    append_indexed(path, names_.node, node);
    append_indexed(path, list, index);
    return path;
  }

  // Pushes a frame for `graph` and defines its values (spec/graph-resolution.md section 1).
  void enter(IrGraph* graph) {
    frames_.emplace_back();
    frames_.back().graph = graph;
    define_values(*graph);
    assign_types(*graph);
  }

  void check_count(std::size_t count, const char* what) const {
    if (count > static_cast<std::size_t>(std::numeric_limits<Index>::max())) {
      throw ModelError(ModelErrorKind::Unsupported, std::string("too many ") + what + " in one graph",
                       model_.source_name, std::nullopt, graph_path(frames_.size() - 1));
    }
  }

  Index add_value(IrGraph& g, const std::string& name, IrValue::Source source, std::size_t index,
                  Index slot) {
    IrValue value;
    value.name = name;
    value.source = source;
    value.index = static_cast<Index>(index);
    value.output_slot = slot;
    const Index id = static_cast<Index>(g.values.size());
    g.values.push_back(std::move(value));
    g.value_index.emplace(name, id);
    return id;
  }

  void define_values(IrGraph& g) {
    g.values.clear();
    g.value_index.clear();
    g.order.clear();
    g.captures.clear();
    g.nodes_were_reordered = false;
    check_count(g.inputs.size(), "inputs");
    check_count(g.initializers.size(), "initializers");
    check_count(g.sparse_initializers.size(), "sparse initializers");
    check_count(g.nodes.size(), "nodes");
    std::size_t total = g.inputs.size() + g.initializers.size() + g.sparse_initializers.size();
    for (const IrNode& node : g.nodes) {
      check_count(node.inputs.size(), "node inputs");
      check_count(node.outputs.size(), "node outputs");
      total += node.outputs.size();
    }
    check_count(total, "values");
    g.values.reserve(total);
    g.value_index.reserve(total);

    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const std::string& name = g.inputs[i].name;
      if (name.empty()) fail("graph input " + std::to_string(i) + " has an empty name", field(names_.graph_input, i));
      if (g.value_index.count(name) != 0) {
        fail("graph input " + quoted(name) + " is listed twice", field(names_.graph_input, i));
      }
      add_value(g, name, IrValue::Source::Input, i, -1);
    }
    for (std::size_t i = 0; i < g.initializers.size(); ++i) {
      const std::string& name = g.initializers[i].name;
      // "" is ONNX's mark of an omitted optional operand, never the name of a value: an
      // initializer named "" would shadow every omitted input (issue 11, defect 1).
      if (name.empty()) fail("initializer " + std::to_string(i) + " has an empty name", field(names_.initializer, i));
      auto it = g.value_index.find(name);
      if (it != g.value_index.end()) {
        // spec/graph-resolution.md section 1: the first initializer of an input is its default.
        IrValue& value = g.values[it->second];
        if (value.source == IrValue::Source::Input && value.default_initializer < 0) {
          value.default_initializer = static_cast<Index>(i);
          continue;
        }
        fail("initializer " + quoted(name) + " repeats a name already defined", field(names_.initializer, i));
      }
      add_value(g, name, IrValue::Source::Initializer, i, -1);
    }
    for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i) {
      const std::string& name = g.sparse_initializers[i].values.name;
      if (name.empty()) {
        fail("sparse initializer " + std::to_string(i) + " has an empty name", field(names_.sparse_initializer, i));
      }
      if (g.value_index.count(name) != 0) {
        fail("sparse initializer " + quoted(name) + " repeats a name already defined",
             field(names_.sparse_initializer, i));
      }
      add_value(g, name, IrValue::Source::SparseInitializer, i, -1);
    }
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
      const IrNode& node = g.nodes[n];
      for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        const std::string& name = node.outputs[k];
        if (name.empty()) continue;  // an omitted optional output
        if (g.value_index.count(name) != 0) {
          fail(describe_node(node, n) + " defines " + quoted(name) + ", which is already defined",
               node_field(n, names_.node_output, k));
        }
        add_value(g, name, IrValue::Source::NodeOutput, n, static_cast<Index>(k));
      }
    }
  }

  // spec/graph-resolution.md section 6: input and output declarations first, then value_info,
  // each only for a value of this graph that has no type yet.
  static void assign_types(IrGraph& g) {
    for (std::size_t i = 0; i < g.inputs.size(); ++i) g.values[i].type = g.inputs[i].type;
    auto offer = [&g](const IrValueInfo& info) {
      auto it = g.value_index.find(info.name);
      if (it == g.value_index.end()) return;
      IrValue& value = g.values[it->second];
      if (value.type.kind == IrType::Kind::None) value.type = info.type;
    };
    for (const IrValueInfo& info : g.outputs) offer(info);
    for (const IrValueInfo& info : g.value_info) offer(info);
  }

  // A read of `name` inside frames_.back(): a value of this graph (recorded for `node`, or
  // nothing when node < 0 for a graph output), else a value of an enclosing graph (a capture).
  // Returns false when no graph in scope defines the name.
  bool read(const std::string& name, Index node) {
    Frame& f = frames_.back();
    auto it = f.graph->value_index.find(name);
    if (it != f.graph->value_index.end()) {
      if (node >= 0) f.reads.emplace_back(node, it->second);
      return true;
    }
    if (f.captured.count(name) != 0) return true;
    for (std::size_t d = frames_.size() - 1; d-- > 0;) {
      if (frames_[d].graph->value_index.count(name) != 0) {
        add_capture(f, name);
        return true;
      }
    }
    return false;
  }

  static void add_capture(Frame& f, const std::string& name) {
    if (f.captured.insert(name).second) f.graph->captures.push_back(name);
  }

  // spec/graph-resolution.md sections 3 and 4: the node's opset and its inputs.
  void start_node(Frame& f) {
    IrNode& node = f.graph->nodes[f.node];
    auto opset = opsets_.find(canonical_domain(node.domain));
    if (opset == opsets_.end()) {
      std::string path = graph_path(frames_.size() - 1);
      append_indexed(path, names_.node, f.node);
      path += '.';
      path += names_.node_domain;
      fail(describe_node(node, f.node) + " uses domain " + quoted(node.domain) +
               ", which the model does not import",
           path);
    }
    node.opset = opset->second;
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const std::string& name = node.inputs[k];
      if (name.empty()) continue;  // an omitted optional input
      if (!read(name, static_cast<Index>(f.node))) {
        fail(describe_node(node, f.node) + " reads " + quoted(name) + ", which is not defined",
             node_field(f.node, names_.node_input, k));
      }
    }
    f.node_started = true;
    f.attr = 0;
    f.sub = 0;
  }

  // One step of the walk: start a node, enter its next subgraph, move to the next node, or
  // finish the graph.
  void step() {
    Frame& f = frames_.back();
    IrGraph& g = *f.graph;
    if (f.node < g.nodes.size()) {
      if (!f.node_started) start_node(f);
      IrNode& node = g.nodes[f.node];
      while (f.attr < node.attributes.size()) {
        IrAttribute& attr = node.attributes[f.attr];
        if (f.sub < subgraph_count(attr)) {
          IrGraph* sub = &attr.graphs[f.sub];
          ++f.sub;
          enter(sub);  // invalidates f
          return;
        }
        ++f.attr;
        f.sub = 0;
      }
      ++f.node;
      f.node_started = false;
      return;
    }
    finish(f);
    leave();
  }

  // spec/graph-resolution.md section 2: what the finished subgraph captured is, for the node
  // holding it, a read of a value of this graph or else a capture of this graph too.
  void leave() {
    Frame done = std::move(frames_.back());
    frames_.pop_back();
    if (frames_.empty()) return;
    Frame& parent = frames_.back();
    const Index node = static_cast<Index>(parent.node);
    for (const std::string& name : done.graph->captures) {
      auto it = parent.graph->value_index.find(name);
      if (it != parent.graph->value_index.end()) {
        parent.reads.emplace_back(node, it->second);
      } else {
        add_capture(parent, name);
      }
    }
  }

  void finish(Frame& f) {
    IrGraph& g = *f.graph;
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
      const std::string& name = g.outputs[i].name;
      if (name.empty()) fail("graph output " + std::to_string(i) + " has an empty name", field(names_.graph_output, i));
      if (!read(name, -1)) {
        fail("graph output " + quoted(name) + " is not defined", field(names_.graph_output, i));
      }
    }

    // Each (node, value) read once, grouped by node.
    std::sort(f.reads.begin(), f.reads.end());
    f.reads.erase(std::unique(f.reads.begin(), f.reads.end()), f.reads.end());
    NodeDependencies deps;
    deps.node_count = static_cast<Index>(g.nodes.size());
    deps.dep_begin.assign(g.nodes.size() + 1, 0);
    deps.dep_value.reserve(f.reads.size());
    for (const auto& [node, value] : f.reads) {
      ++deps.dep_begin[static_cast<std::size_t>(node) + 1];
      deps.dep_value.push_back(value);
    }
    for (std::size_t n = 0; n < g.nodes.size(); ++n) deps.dep_begin[n + 1] += deps.dep_begin[n];
    deps.producer.reserve(g.values.size());
    for (const IrValue& value : g.values) {
      deps.producer.push_back(value.source == IrValue::Source::NodeOutput ? value.index : -1);
    }
    std::vector<std::pair<Index, Index>>().swap(f.reads);

    // spec/graph-resolution.md section 5.
    NodeOrder sorted = order_nodes(deps);
    if (sorted.cycle_node >= 0) {
      const std::size_t n = static_cast<std::size_t>(sorted.cycle_node);
      std::string path = graph_path(frames_.size() - 1);
      append_indexed(path, names_.node, n);
      fail(describe_node(g.nodes[n], n) + " depends on its own outputs (a dependency cycle)", path);
    }
    g.order = std::move(sorted.order);
    g.nodes_were_reordered = sorted.reordered;

    // spec/graph-resolution.md section 7: readers in execution order, each once.
    for (Index n : g.order) {
      for (Index k = deps.dep_begin[n]; k < deps.dep_begin[n + 1]; ++k) {
        g.values[deps.dep_value[k]].consumers.push_back(n);
      }
    }
  }

  IrModel& model_;
  const FieldNames& names_;
  std::unordered_map<std::string, std::int64_t> opsets_;
  std::vector<Frame> frames_;
};

}  // namespace

void resolve_model(IrModel& model, FieldPathStyle style) {
  Resolver(model, style).run();
}

}  // namespace onemodel
