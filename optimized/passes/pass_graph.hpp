// The graph the passes edit (graph-runtime.md section 6): the compiled graph before any plan -
// nodes in dependency order with their kernels, value ids with names and constants, the graph's
// outputs - plus what a pass may ask of it. Shape-free: nothing here looks at input shapes.
//
// Cost (spec/optimized-engine.md "Load time"; issue 11 defect 5): every query is O(1) (amortized)
// from indexes kept here - readers per value, producer per value, graph outputs and inputs as
// flags, a memo of known_f32 - so a pass that asks a bounded number of questions per node is
// linear in the graph. A pass changes node inputs and outputs only through set_inputs(),
// set_outputs() and remove_node(), which keep the indexes current; a removed node stays in
// nodes() (indices stay stable during a pass) until remove_unread() compacts the list.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::opt {

class PassGraph {
 public:
  PassGraph(CompiledGraph& graph, const IrGraph& ir, const SessionOptions& options, const OptimizedConfig& config)
      : graph_(graph), ir_(ir), options_(options), config_(config) {
    index_all();
  }

  std::vector<CompiledNode>& nodes() noexcept { return graph_.nodes; }
  const std::vector<CompiledNode>& nodes() const noexcept { return graph_.nodes; }
  const SessionOptions& options() const noexcept { return options_; }
  const OptimizedConfig& config() const noexcept { return config_; }

  // How many node inputs read the value (an input listed twice counts twice).
  int readers(int id) const;
  bool is_output(int id) const;
  // The value's tensor when it is a true constant: an initializer the caller cannot replace
  // (not also a graph input). Else nullptr.
  const Tensor* constant(int id) const;
  // True when the value is a compact weight (CompiledGraph::compact): its constant() is float16
  // or bfloat16 standing for binary32 values.
  bool is_compact(int id) const;
  // Whether the value is known to be float32 without looking at input shapes: a declared type
  // (graph input, output or value_info), a constant, or the output of an operator whose result
  // has its first input's type. False when unsure.
  bool known_f32(int id) const;
  // The same walk for the float types the passes act on: F32, F16 or BF16 when known (a Cast's
  // `to` decides too), nullopt otherwise. In a model with half values it is the type the
  // adapter gives the value (spec/half-precision.md section 8.2: the storage type of a wrapped
  // node is its first 16-bit input's, which for these operators is their input 0's).
  std::optional<DType> known_type(int id) const;
  // True when the model has half values (spec/half-precision.md section 8.1): every kernel is
  // wrapped by the adapter, and only the passes that serve half models run (section 8.6).
  bool half_model() const noexcept { return half_model_; }
  void set_half_model(bool half) noexcept { half_model_ = half; }
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
  // A node made by a pass (its IR description), owned by the graph for the session's life.
  const IrNode& own_node(IrNode node) {
    graph_.made_nodes.push_back(std::make_unique<IrNode>(std::move(node)));
    return *graph_.made_nodes.back();
  }
  // A new value and its constant (owned by the graph).
  int add_value(const std::string& name);
  void set_constant(int id, Tensor value);

  // Edits of node `index` (an index into nodes()); they keep the indexes current.
  void set_inputs(std::size_t index, std::vector<int> inputs);
  void set_outputs(std::size_t index, std::vector<int> outputs);
  // The node reads and writes nothing from now on; remove_unread() drops it.
  void remove_node(std::size_t index);

  // Drops nodes none of whose outputs is read or a graph output (after each pass), and rebuilds
  // the indexes for the compacted node list.
  void remove_unread();

  // Work done so far (node and value visits of the queries, the index upkeep and the passes that
  // report theirs): a count tests compare across graph sizes to check that it grows linearly.
  // Counts, never times, so it is the same on every machine.
  std::uint64_t work() const noexcept { return work_; }
  void add_work(std::uint64_t steps) const noexcept { work_ += steps; }

 private:
  void index_all();
  void grow_indexes(std::size_t values);
  void count_reads(std::size_t index, int sign);
  bool compute_known_f32(int id) const;

  CompiledGraph& graph_;
  const IrGraph& ir_;
  const SessionOptions& options_;
  const OptimizedConfig& config_;
  mutable std::map<int, Tensor> constant_nodes_;  // constant_value() of Constant-node outputs
  // By value id: input slots reading it, the sum of those slots' node indices (the reader itself
  // when there is one slot), the node writing it (-1 none), graph output, graph input.
  std::vector<int> reads_;
  std::vector<std::int64_t> reader_sum_;
  std::vector<int> producer_;
  std::vector<bool> is_output_;
  std::vector<bool> is_input_;
  // known_f32 memo: -1 not asked yet, 0 false, 1 true. Cleared by remove_unread(), so it lives
  // one pass. Within a pass an edit can only turn a later value's answer from false to true (a
  // fused node reads a value already known to be float32), and the passes walk the nodes in
  // order asking only about values made before the node they look at, so no memoized answer
  // they read differs from a fresh one.
  mutable std::vector<std::int8_t> known_type_;
  mutable std::uint64_t work_ = 0;
  bool half_model_ = false;
};

}  // namespace onemodel::opt
