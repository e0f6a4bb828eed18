// `elementwise-chain` (docs/design.md, "Element-wise chains"; bit-preserving, so it also runs in
// exact mode): a run of float32 element-wise operators served by the element-wise overrides
// (optimized/ops/elementwise_override.hpp: Add, Sub, Mul, Div, Relu, Clip, HardSwish, Sigmoid, Exp,
// ...) that together read one tensor X plus one-element float32 constants becomes one
// ElementwiseProgramOp. In a model with half values X and the constants may also be float16 or
// bfloat16, all of one type (the program then rounds after every step, spec/half-precision.md
// section 8.6). Exported activations written out as operators are the case it is for:
// the PP-OCRv4 detector's HardSwish is Add(3), Clip(0, 6), Mul, Div(6) between a scale-and-shift
// Mul/Add pair, eight passes over each large map where one suffices.
//
// Growth: from a candidate node s whose tensor operands are all one value X, every later
// candidate whose tensor operands are X or results of the group joins it. The group is then cut
// to its longest prefix (in graph order, at least two operators) whose results are read by
// nothing outside it, but for the prefix's last result (not a graph output unless it is that
// last one). That node takes the fused kernel, reading X; the others become unread and go.
// Growth stops at kMaxSteps members or kMaxExamined nodes looked at (below), which keeps the
// pass linear in the graph.
// Shape-free: the constants have one element, so the chain's shape is X's (numpy broadcasting
// can only add leading axes of extent 1, which the fused node states too).
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "core/graph/half_adapter.hpp"
#include "onemodel/half.hpp"
#include "optimized/ops/elementwise_override.hpp"
#include "optimized/passes/elementwise_program.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

// A node the chain may absorb: its step with operands still as value ids (a, b), which operands
// are constants, the highest constant rank and the constants' element type (a chain takes only
// nodes whose constants have its own type: spec/half-precision.md section 8.6).
struct Candidate {
  EwStep step;
  int operand[2] = {-1, -1};  // value ids of the tensor operands (-1: none / constant)
  int constant_rank = 0;
  DType constant_type = DType::F32;
  bool has_constant = false;
};

// A one-element float32, float16 or bfloat16 constant: its value (widened, which is exact) and
// rank; the type is noted in the candidate, which takes constants of one type only.
bool scalar_constant(const PassGraph& graph, int id, float& value, int& rank, Candidate& into) {
  const Tensor* t = graph.constant_value(id);
  if (t == nullptr || t->element_count() != 1) return false;
  const Tensor dense = t->contiguous();
  if (t->dtype() == DType::F32) {
    value = dense.data<float>()[0];
  } else if (t->dtype() == DType::F16) {
    value = half_bits_to_float(dense.data<std::uint16_t>()[0]);
  } else if (t->dtype() == DType::BF16) {
    value = bfloat16_bits_to_float(dense.data<std::uint16_t>()[0]);
  } else {
    return false;
  }
  if (into.has_constant && into.constant_type != t->dtype()) return false;
  into.has_constant = true;
  into.constant_type = t->dtype();
  rank = t->rank();
  return true;
}

bool candidate(const PassGraph& graph, const CompiledNode& node, Candidate& out) {
  if (node.outputs.size() != 1 || node.outputs[0] < 0 || node.inputs.empty() || node.inputs[0] < 0) return false;
  out = Candidate{};
  // In a model with half values the node's kernel is the adapter around the override.
  const OpKernel& kernel = unwrap_half_adapter(*node.kernel);
  if (const auto* binary = dynamic_cast<const BinaryF32Override*>(&kernel)) {
    if (node.inputs.size() != 2 || node.inputs[1] < 0) return false;
    out.step.binary = true;
    out.step.op = binary->op();
    int tensors = 0;
    for (int side = 0; side < 2; ++side) {
      const int id = node.inputs[static_cast<std::size_t>(side)];
      float value = 0.0f;
      int rank = 0;
      if (scalar_constant(graph, id, value, rank, out)) {
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
  const auto* unary = dynamic_cast<const UnaryF32Override*>(&kernel);
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
      if (!scalar_constant(graph, node.inputs[i], value, rank, out)) return false;
      (i == 1 ? out.step.unary.alpha : out.step.unary.beta) = value;
    }
    return true;
  }
  if (node.inputs.size() != 1) return false;
  out.step.unary = unary->args();
  return true;
}

// Bounds that keep the pass linear in the graph (spec/optimized-engine.md "Load time"): growth
// from one start looks at no more than kMaxExamined nodes and stops at kMaxSteps members, so a
// longer chain is fused in pieces of at most kMaxSteps operators (each piece's last node reads
// the previous piece's result) and a value read by many element-wise siblings costs a bounded
// amount per sibling.
constexpr std::size_t kMaxSteps = 64;
constexpr std::size_t kMaxExamined = 256;

// The candidate readers of each value, in node order, as lists growth merges lazily.
struct ReaderStream {
  const std::vector<int>* list;
  std::size_t next;
};

// Growth from start `s` and the longest sealed prefix (see the file comment). Members are found in
// node order by merging the candidate readers of X (after s) and of each member's result: every
// node that can join reads X or a member's result, and all its operands are made before it, so
// the merge meets nodes in the order the full scan would and decides each the same way. A prefix
// of length len is sealed when no result before its last one is a graph output and every input
// slot reading those results belongs to a member of the prefix: `open_reads` counts the slots not
// yet matched, so each length is checked in O(1).
struct Growth {
  std::vector<int> members;
  std::size_t sealed_length = 0;  // longest sealed prefix of at least two members, or 0
};

Growth grow(PassGraph& graph, const std::vector<CompiledNode>& nodes, const std::vector<Candidate>& cand,
            const std::vector<bool>& is_cand, const std::vector<std::vector<int>>& cand_readers,
            std::vector<int>& made_by, std::vector<int>& seen, std::size_t s, int x, DType type) {
  Growth g;
  const int start = static_cast<int>(s);
  // Min-heap of (next node index, stream).
  std::vector<ReaderStream> streams;
  std::vector<std::pair<int, std::size_t>> heap;
  const auto cmp = [](const std::pair<int, std::size_t>& a, const std::pair<int, std::size_t>& b) { return a.first > b.first; };
  const auto add_stream = [&](const std::vector<int>& list, std::size_t from) {
    if (from >= list.size()) return;
    streams.push_back(ReaderStream{&list, from});
    heap.emplace_back(list[from], streams.size() - 1);
    std::push_heap(heap.begin(), heap.end(), cmp);
  };
  const std::vector<int>& x_readers = cand_readers[static_cast<std::size_t>(x)];
  add_stream(x_readers, static_cast<std::size_t>(std::upper_bound(x_readers.begin(), x_readers.end(), start) - x_readers.begin()));

  std::int64_t open_reads = 0;
  // Adds node t as the next member; false when no longer prefix can be sealed.
  const auto join = [&](std::size_t t) {
    for (int id : nodes[t].inputs) {
      if (id >= 0 && made_by[static_cast<std::size_t>(id)] == start) --open_reads;
    }
    g.members.push_back(static_cast<int>(t));
    if (g.members.size() >= 2 && open_reads == 0) g.sealed_length = g.members.size();
    const int result = nodes[t].outputs[0];
    made_by[static_cast<std::size_t>(result)] = start;
    open_reads += graph.readers(result);
    graph.add_work(nodes[t].inputs.size() + 1);
    if (graph.is_output(result) || g.members.size() >= kMaxSteps) return false;
    add_stream(cand_readers[static_cast<std::size_t>(result)], 0);
    return true;
  };
  if (!join(s)) return g;
  for (std::size_t examined = 0; !heap.empty() && examined < kMaxExamined; ++examined) {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    const auto [t_index, stream] = heap.back();
    heap.pop_back();
    ReaderStream& from = streams[stream];
    if (++from.next < from.list->size()) {
      heap.emplace_back((*from.list)[from.next], stream);
      std::push_heap(heap.begin(), heap.end(), cmp);
    }
    graph.add_work(1);
    const std::size_t t = static_cast<std::size_t>(t_index);
    if (seen[t] == start) continue;
    seen[t] = start;
    bool reads_member = false;
    for (int id : nodes[t].inputs) reads_member = reads_member || (id >= 0 && made_by[static_cast<std::size_t>(id)] == start);
    bool joins = is_cand[t] && (!cand[t].has_constant || cand[t].constant_type == type);
    for (int id : cand[t].operand) joins = joins && (id < 0 || id == x || made_by[static_cast<std::size_t>(id)] == start);
    if (!joins) {
      // A member's result read outside the group: no longer prefix can be sealed.
      if (reads_member) break;
      continue;  // another reader of X
    }
    if (!join(t)) break;
  }
  return g;
}

// Replaces the sealed prefix of `g` by one ElementwiseProgramOp on its last node, reading X.
// `value_of` is -1 everywhere on entry and on return.
void fuse(PassGraph& graph, const std::vector<Candidate>& cand, std::vector<bool>& is_cand, const Growth& g, int x,
          std::vector<int>& value_of, DType type) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  const std::size_t len = g.sealed_length;
  // Build the program: value 0 is X, value k + 1 the k-th member's result.
  std::vector<EwStep> steps;
  value_of[static_cast<std::size_t>(x)] = 0;
  int constant_rank = 0;
  for (std::size_t k = 0; k < len; ++k) {
    const Candidate& c = cand[static_cast<std::size_t>(g.members[k])];
    EwStep step = c.step;
    step.a = c.operand[0] >= 0 ? value_of[static_cast<std::size_t>(c.operand[0])] : 0;
    step.b = c.operand[1] >= 0 ? value_of[static_cast<std::size_t>(c.operand[1])] : 0;
    step.result = static_cast<int>(k) + 1;
    constant_rank = std::max(constant_rank, c.constant_rank);
    value_of[static_cast<std::size_t>(nodes[static_cast<std::size_t>(g.members[k])].outputs[0])] = step.result;
    steps.push_back(step);
  }
  value_of[static_cast<std::size_t>(x)] = -1;
  for (std::size_t k = 0; k < len; ++k) {
    value_of[static_cast<std::size_t>(nodes[static_cast<std::size_t>(g.members[k])].outputs[0])] = -1;
  }
  graph.add_work(2 * len);
  const std::size_t sink = static_cast<std::size_t>(g.members[len - 1]);
  nodes[sink].kernel = std::make_unique<ElementwiseProgramOp>(graph.config(), std::move(steps), constant_rank, type);
  graph.set_inputs(sink, {x});
  // The other members are read by members only: they go (remove_unread() drops them after the pass).
  for (std::size_t k = 0; k + 1 < len; ++k) graph.remove_node(static_cast<std::size_t>(g.members[k]));
  for (std::size_t k = 0; k < len; ++k) is_cand[static_cast<std::size_t>(g.members[k])] = false;
}

}  // namespace

// One walk in node order: each candidate is a start once (a start that fused is gone; one that
// did not stays a candidate that a later group may take in).
void run_elementwise_chain_fuse(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  std::size_t values = 0;
  for (const CompiledNode& n : nodes) {
    for (int id : n.inputs) values = std::max(values, static_cast<std::size_t>(id + 1));
    for (int id : n.outputs) values = std::max(values, static_cast<std::size_t>(id + 1));
  }
  std::vector<Candidate> cand(nodes.size());
  std::vector<bool> is_cand(nodes.size(), false);
  std::vector<std::vector<int>> cand_readers(values);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    is_cand[i] = candidate(graph, nodes[i], cand[i]);
    graph.add_work(1);
    if (!is_cand[i]) continue;
    for (int id : cand[i].operand) {
      if (id < 0) continue;
      std::vector<int>& list = cand_readers[static_cast<std::size_t>(id)];
      if (list.empty() || list.back() != static_cast<int>(i)) list.push_back(static_cast<int>(i));
    }
  }
  std::vector<int> made_by(values, -1);       // the start whose group made the value
  std::vector<int> seen(nodes.size(), -1);    // the start whose growth looked at the node
  std::vector<int> value_of(values, -1);
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    if (!is_cand[s]) continue;
    const Candidate& c = cand[s];
    const int x = c.operand[0] >= 0 ? c.operand[0] : c.operand[1];
    if (c.operand[0] >= 0 && c.operand[1] >= 0 && c.operand[0] != c.operand[1]) continue;
    // X's type is the chain's: float32, or in a model with half values float16 or bfloat16
    // (spec/half-precision.md section 8.6); every member's constants must have it.
    const std::optional<DType> type = graph.known_type(x);
    if (!type || (*type != DType::F32 && !graph.half_model())) continue;
    if (c.has_constant && c.constant_type != *type) continue;
    const Growth g = grow(graph, nodes, cand, is_cand, cand_readers, made_by, seen, s, x, *type);
    if (g.sealed_length >= 2) fuse(graph, cand, is_cand, g, x, value_of, *type);
  }
}

}  // namespace onemodel::opt
