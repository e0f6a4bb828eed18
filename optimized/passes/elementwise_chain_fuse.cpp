// `elementwise-chain` (docs/design.md, "Element-wise chains"; bit-preserving, so it also runs in
// exact mode): a run of float32 element-wise operators served by the element-wise overrides
// (optimized/ops/elementwise_override.hpp: Add, Sub, Mul, Div, Relu, Clip, HardSwish, Sigmoid, Exp,
// ...) that together read one tensor X plus one-element float32 constants becomes one
// ElementwiseProgramOp. Exported activations written out as operators are the case it is for:
// the PP-OCRv4 detector's HardSwish is Add(3), Clip(0, 6), Mul, Div(6) between a scale-and-shift
// Mul/Add pair, eight passes over each large map where one suffices.
//
// Growth: from a candidate node s whose tensor operands are all one value X, every later
// candidate whose tensor operands are X or results of the group joins it. The group is then cut
// to its longest prefix (in graph order, at least two operators) whose results are read by
// nothing outside it, but for the prefix's last result (not a graph output unless it is that
// last one). That node takes the fused kernel, reading X; the others become unread and go.
// Shape-free: the constants have one element, so the chain's shape is X's (numpy broadcasting
// can only add leading axes of extent 1, which the fused node states too).
#include <algorithm>
#include <limits>
#include <set>

#include "optimized/ops/elementwise_override.hpp"
#include "optimized/passes/elementwise_program.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

// A node the chain may absorb: its step with operands still as value ids (a, b), which operands
// are constants, and the highest constant rank.
struct Candidate {
  EwStep step;
  int operand[2] = {-1, -1};  // value ids of the tensor operands (-1: none / constant)
  int constant_rank = 0;
};

// A one-element float32 constant: its value and rank.
bool scalar_constant(const PassGraph& graph, int id, float& value, int& rank) {
  const Tensor* t = graph.constant_value(id);
  if (t == nullptr || t->dtype() != DType::F32 || t->element_count() != 1) return false;
  value = t->contiguous().data<float>()[0];
  rank = t->rank();
  return true;
}

bool candidate(const PassGraph& graph, const CompiledNode& node, Candidate& out) {
  if (node.outputs.size() != 1 || node.outputs[0] < 0 || node.inputs.empty() || node.inputs[0] < 0) return false;
  out = Candidate{};
  if (const auto* binary = dynamic_cast<const BinaryF32Override*>(node.kernel.get())) {
    if (node.inputs.size() != 2 || node.inputs[1] < 0) return false;
    out.step.binary = true;
    out.step.op = binary->op();
    int tensors = 0;
    for (int side = 0; side < 2; ++side) {
      const int id = node.inputs[static_cast<std::size_t>(side)];
      float value = 0.0f;
      int rank = 0;
      if (scalar_constant(graph, id, value, rank)) {
        (side == 0 ? out.step.a_const : out.step.b_const) = true;
        out.step.value = value;
        out.constant_rank = std::max(out.constant_rank, rank);
      } else {
        out.operand[side] = id;
        ++tensors;
      }
    }
    return tensors > 0;  // both constant: a constant's business, not a chain's
  }
  const auto* unary = dynamic_cast<const UnaryF32Override*>(node.kernel.get());
  if (unary == nullptr) return false;
  const IrNode& ir = *node.ir;
  out.operand[0] = node.inputs[0];
  if (ir.op_type == "Clip" && ir.opset >= 11) {
    // Bounds from inputs 1 and 2, one-element constants or omitted (op_clip.cpp: an omitted bound
    // is the finite extreme).
    if (node.inputs.size() > 3) return false;
    out.step.unary = ew::UnaryArgs{ew::UnaryOp::Clip, std::numeric_limits<float>::lowest(),
                                   std::numeric_limits<float>::max()};
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (node.inputs[i] < 0) continue;
      float value = 0.0f;
      int rank = 0;
      if (!scalar_constant(graph, node.inputs[i], value, rank)) return false;
      (i == 1 ? out.step.unary.alpha : out.step.unary.beta) = value;
    }
    return true;
  }
  if (node.inputs.size() != 1) return false;
  out.step.unary = unary->args();
  return true;
}

// Whether value `id` is read by a node outside `members` (indices into nodes) or is a graph output.
bool read_outside(const PassGraph& graph, const std::vector<std::vector<int>>& readers, int id,
                  const std::set<int>& members) {
  if (graph.is_output(id)) return true;
  for (int r : readers[static_cast<std::size_t>(id)]) {
    if (members.count(r) == 0) return true;
  }
  return false;
}

// One fusion, or false when none is left. `tried` holds the start nodes that gave no group.
bool fuse_one(PassGraph& graph, std::set<const IrNode*>& tried) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  std::size_t values = 0;
  for (const CompiledNode& n : nodes) {
    for (int id : n.inputs) values = std::max(values, static_cast<std::size_t>(id + 1));
    for (int id : n.outputs) values = std::max(values, static_cast<std::size_t>(id + 1));
  }
  std::vector<std::vector<int>> readers(values);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (int id : nodes[i].inputs) {
      if (id >= 0) readers[static_cast<std::size_t>(id)].push_back(static_cast<int>(i));
    }
  }
  std::vector<Candidate> cand(nodes.size());
  std::vector<bool> is_cand(nodes.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) is_cand[i] = candidate(graph, nodes[i], cand[i]);

  for (std::size_t s = 0; s < nodes.size(); ++s) {
    if (!is_cand[s] || tried.count(nodes[s].ir) != 0) continue;
    tried.insert(nodes[s].ir);
    const int x = cand[s].operand[0] >= 0 ? cand[s].operand[0] : cand[s].operand[1];
    if (cand[s].operand[0] >= 0 && cand[s].operand[1] >= 0 && cand[s].operand[0] != cand[s].operand[1]) continue;
    if (!graph.known_f32(x)) continue;
    // Growth in graph order.
    std::vector<int> group{static_cast<int>(s)};
    std::set<int> produced{nodes[s].outputs[0]};
    for (std::size_t t = s + 1; t < nodes.size(); ++t) {
      if (!is_cand[t]) continue;
      bool joins = true;
      for (int id : cand[t].operand) joins = joins && (id < 0 || id == x || produced.count(id) != 0);
      if (!joins) continue;
      group.push_back(static_cast<int>(t));
      produced.insert(nodes[t].outputs[0]);
    }
    // The longest prefix of at least two operators with one result read outside: the last one's.
    for (std::size_t len = group.size(); len >= 2; --len) {
      const std::set<int> members(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(len));
      bool sealed = true;
      for (std::size_t k = 0; k + 1 < len && sealed; ++k) {
        sealed = !read_outside(graph, readers, nodes[static_cast<std::size_t>(group[k])].outputs[0], members);
      }
      if (!sealed) continue;
      // Build the program: value 0 is X, value k + 1 the k-th member's result.
      std::vector<EwStep> steps;
      std::vector<int> value_of_id(values, -1);
      value_of_id[static_cast<std::size_t>(x)] = 0;
      int constant_rank = 0;
      for (std::size_t k = 0; k < len; ++k) {
        const Candidate& c = cand[static_cast<std::size_t>(group[k])];
        EwStep step = c.step;
        step.a = c.operand[0] >= 0 ? value_of_id[static_cast<std::size_t>(c.operand[0])] : 0;
        step.b = c.operand[1] >= 0 ? value_of_id[static_cast<std::size_t>(c.operand[1])] : 0;
        step.result = static_cast<int>(k) + 1;
        constant_rank = std::max(constant_rank, c.constant_rank);
        value_of_id[static_cast<std::size_t>(nodes[static_cast<std::size_t>(group[k])].outputs[0])] = step.result;
        steps.push_back(step);
      }
      CompiledNode& sink = nodes[static_cast<std::size_t>(group[len - 1])];
      sink.kernel = std::make_unique<ElementwiseProgramOp>(graph.config(), std::move(steps), constant_rank);
      sink.inputs = {x};
      graph.remove_unread();
      return true;
    }
  }
  return false;
}

}  // namespace

void run_elementwise_chain_fuse(PassGraph& graph) {
  std::set<const IrNode*> tried;
  while (fuse_one(graph, tried)) {
  }
}

}  // namespace onemodel::opt
