// The optimized engine's compiled graph (graph-runtime.md sections 1 and 4): operators resolved
// (the optimized override where one exists, else the reference kernel), weights copied out of the
// model, nodes with no path to an output dropped. Independent of input shapes.
#pragma once

#include "core/graph/subgraph.hpp"
#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

struct CompiledNode {
  const IrNode* ir = nullptr;
  NodeInfo info;
  std::unique_ptr<OpKernel> kernel;
  std::vector<int> inputs;   // value ids, -1 for an omitted input
  std::vector<int> outputs;  // value ids, -1 for an omitted output
  // By input position: 1 when that input's value derives from a graph input (spec/errors.md
  // section 3.2). Set once at compile time so shaping in a run allocates nothing.
  std::vector<std::uint8_t> input_from_caller;
  // The kernel operator lookup gave the node before the graph passes, and its class: a node whose
  // kernel differs in address or class afterwards runs a kernel a pass made (a fused node; run
  // profiles, issue 15). Only compared, never used: the kernel may be owned by a fused one, or gone.
  const OpKernel* looked_up_kernel = nullptr;
  const std::type_info* looked_up_class = nullptr;
  bool made_by_pass() const noexcept {
    const OpKernel* now = kernel.get();
    if (now == nullptr || now != looked_up_kernel || looked_up_class == nullptr) return true;
    const OpKernel& same = *now;
    return typeid(same) != *looked_up_class;
  }
};

struct CompiledGraph {
  // Value ids index graph.values.
  std::vector<std::string> value_names;
  std::vector<Tensor> initializers;  // by value id; undefined where the value is not one
  // By value id: 1 for a compact weight (IrTensor::compact, spec/session.md section 9), shown to
  // infer() as InferInput::compact.
  std::vector<std::uint8_t> compact;
  std::vector<int> input_ids;        // graph inputs, declaration order
  std::vector<int> output_ids;       // graph outputs, declaration order
  std::vector<CompiledNode> nodes;   // live nodes, dependency order
  // IR nodes a pass made (qdq's QLinearConv), owned here: a CompiledNode's ir and NodeInfo point
  // at them as at the model's own nodes.
  std::vector<std::unique_ptr<IrNode>> made_nodes;
  // By value id: 1 when the value derives from a graph input (the caller's data), after the
  // passes (spec/errors.md section 3.2).
  std::vector<std::uint8_t> from_caller;
  // The session's instruction-set path (run profiles name it per node, issue 15).
  Isa isa = Isa::Scalar;
  // Plans may give a Concat's inputs their slices of its output (spec/optimized-engine.md
  // section 4 rule 5). Off at OptimizationLevel::None, so the copying plan stays comparable.
  bool concat_in_place = true;

  int value_id(const std::string& name) const;  // -1 when absent
  bool is_compact(int id) const noexcept {
    return id >= 0 && static_cast<std::size_t>(id) < compact.size() && compact[static_cast<std::size_t>(id)] != 0;
  }
};

// Throws SessionError as the reference engine does for missing operators and exact mode.
// `subgraphs` compiles the bodies of If, Loop, Scan and SequenceMap (spec/values.md section 3).
std::unique_ptr<CompiledGraph> compile_graph(const IrModel& model, const SessionOptions& options,
                                             const OptimizedConfig& config,
                                             const SubgraphCompiler* subgraphs = nullptr);

}  // namespace onemodel::opt
