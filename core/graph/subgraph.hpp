// Subgraph bodies of If, Loop, Scan and SequenceMap (spec/values.md section 3, from graph-runtime.md
// section 8): each body is compiled once, when its node's kernel is made, into an engine of the
// session's kind, mode and kernel path; the node runs it as often as it needs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/ir.hpp"

namespace onemodel {

// A compiled body. Its inputs are the body's formal inputs followed by its captures (the outer
// values it reads, IrGraph::captures order).
class Body {
 public:
  virtual ~Body() = default;
  // Runs the body once within the node's run (its stop test and what is left of its memory
  // limit). inputs: formal inputs then captures, contiguous. outputs[i] receives body output i:
  // a defined tensor of the result's type and shape is overwritten in place (a loop-carried
  // buffer, a slice of a stacked output), any other slot is replaced by a new tensor.
  virtual void run(const RunContext& parent, std::span<const Tensor> inputs, std::span<Tensor> outputs) const = 0;

  const IrGraph& graph() const noexcept { return *graph_; }
  std::size_t formal_input_count() const noexcept { return graph_->inputs.size(); }
  std::size_t output_count() const noexcept { return graph_->outputs.size(); }
  const std::vector<std::string>& captures() const noexcept { return graph_->captures; }

 protected:
  explicit Body(const IrGraph& graph) noexcept : graph_(&graph) {}

 private:
  const IrGraph* graph_;  // the body as the node holds it (outlives the kernel)
};

// Made by each engine for the graph whose kernels it makes, and handed to the factories through
// NodeInfo::subgraphs().
class SubgraphCompiler {
 public:
  virtual ~SubgraphCompiler() = default;
  // Compiles `body`, an attribute graph of `node`. Throws what session creation throws for the
  // body (every missing operator, exact mode unavailable, ...), naming the node.
  virtual std::unique_ptr<Body> compile(const IrGraph& body, const NodeInfo& node) const = 0;
  // SessionOptions::max_loop_iterations.
  virtual std::int64_t max_loop_iterations() const noexcept = 0;
  // The declared type of a value of the graph whose kernels are being made (nullptr: undeclared).
  virtual const IrType* declared_type(const std::string& name) const noexcept = 0;
};

// The outer values the subgraphs of `node` read: the union of their captures in first-use order
// (attribute order, then each graph's captures order). The engines append them to the node's
// inputs (append_capture_inputs), so planning and freeing see the reads.
std::vector<std::string> node_captures(const IrNode& node);
// Appends node_captures(node) to the inputs of every node of `graph` that holds subgraphs (not to
// nodes inside the subgraphs: their engines do it when the bodies are compiled).
void append_capture_inputs(IrGraph& graph);
// How many inputs `node` declares: its inputs without the appended captures.
std::size_t declared_input_count(const IrNode& node);

}  // namespace onemodel
