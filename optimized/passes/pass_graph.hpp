// The graph the passes edit (graph-runtime.md section 6): the compiled graph before any plan -
// nodes in dependency order with their kernels, value ids with names and constants, the graph's
// outputs - plus what a pass may ask of it. Shape-free: nothing here looks at input shapes.
#pragma once

#include <map>
#include <string>

#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::opt {

class PassGraph {
 public:
  PassGraph(CompiledGraph& graph, const IrGraph& ir, const SessionOptions& options, const OptimizedConfig& config)
      : graph_(graph), ir_(ir), options_(options), config_(config) {}

  std::vector<CompiledNode>& nodes() noexcept { return graph_.nodes; }
  const SessionOptions& options() const noexcept { return options_; }
  const OptimizedConfig& config() const noexcept { return config_; }

  // How many node inputs read the value (an input listed twice counts twice).
  int readers(int id) const;
  bool is_output(int id) const;
  // The value's tensor when it is a true constant: an initializer the caller cannot replace
  // (not also a graph input). Else nullptr.
  const Tensor* constant(int id) const;
  // Whether the value is known to be float32 without looking at input shapes: a declared type
  // (graph input, output or value_info), a constant, or the output of an operator whose result
  // has its first input's type. False when unsure.
  bool known_f32(int id) const;
  // The index in nodes() of the one node reading the value, or -1 when there is not exactly one.
  int only_reader(int id) const;
  // The index in nodes() of the node whose outputs include the value, or -1 (an input or a
  // constant).
  int producer(int id) const;
  // constant(id), or else the value of an ai.onnx Constant node's output (what torch exports for
  // scalars such as GELU's 0.5 or attention's 1/sqrt(d)), stated by the node's own infer(). Used
  // by the fast-mode passes, which match such scalars; the bit-preserving passes keep reading
  // constant() only, so the exact pipeline is unchanged.
  const Tensor* constant_value(int id) const;
  // graph-passes.md "Memory": drops the graph's copy of a constant once nothing reads it (not a
  // node input, not a graph output or input), so a packed or folded replacement does not double
  // resident weight memory.
  void release_if_unread(int id);

  const std::string& value_name(int id) const { return graph_.value_names[static_cast<std::size_t>(id)]; }
  // A new value and its constant (owned by the graph).
  int add_value(const std::string& name);
  void set_constant(int id, Tensor value);

  // Drops nodes none of whose outputs is read or a graph output (after each pass).
  void remove_unread();

 private:
  CompiledGraph& graph_;
  const IrGraph& ir_;
  const SessionOptions& options_;
  const OptimizedConfig& config_;
  mutable std::map<int, Tensor> constant_nodes_;  // constant_value() of Constant-node outputs
};

}  // namespace onemodel::opt
