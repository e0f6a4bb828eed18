// `self-gate` (docs/design.md "Self-gated activations"; spec/optimized-engine.md section 2;
// bit-preserving, so it also runs in exact mode): the exporters' SiLU/Swish, Mul(x, Sigmoid(x)),
// and HardSwish below opset 14, Mul(x, HardSigmoid(x)) - either operand order - become one
// SelfGateOp reading x. HardSigmoid with alpha = 1/6 and beta = 0.5 exactly (as float32) is
// HardSwish (ew::UnaryOp::HardSwish computes the same roundings: x * 0.16666667 + 0.5, clamp,
// product); other constants keep theirs (ew::UnaryOp::HardSigmoidGate).
//
// Conditions: x is known to be float32; the gate reads x alone (a Sigmoid, or a HardSigmoid from
// opset 6) and its result is read by the Mul once and by nothing else, and is not a graph output;
// the Mul's other operand is x itself (so the operands have one shape: no broadcast). x may have
// other readers: the fused node reads x as the gate did. It runs before linear-pack-fuse and
// conv-activation, which then move the fused node into a product's tile epilogue when x is the
// product's result read by nothing else and not a graph output (their own rules).
//
// Why bits are kept: the gate's value is the gate kernel's (canonical NaN included), the product
// one rounded multiply (IEEE multiplication is commutative, and a NaN is stored as 0x7FC00000
// whichever operand it came from), each element on its own, and the element-wise kernels give one
// result per element whatever the path, mode, lane position or thread count (elementwise.hpp).
// Not in a model with half values: there the adapter rounds the gate to 16 bits before the Mul.
// Shape-free.
#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/self_gate_op.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op &&
         node.outputs.size() == 1 && node.outputs[0] >= 0;
}

// When `gate` (a Mul operand) is Sigmoid(x) or HardSigmoid(x) whose result only the Mul reads:
// sets `x` and the fused function, true.
bool gate_of(const PassGraph& graph, int gate, int& x, ew::UnaryArgs& args) {
  if (gate < 0 || graph.is_output(gate) || graph.readers(gate) != 1) return false;
  const int p = graph.producer(gate);
  if (p < 0) return false;
  const CompiledNode& node = graph.nodes()[static_cast<std::size_t>(p)];
  if (node.inputs.size() != 1 || node.inputs[0] < 0) return false;
  if (is_onnx(node, "Sigmoid")) {
    args = ew::UnaryArgs{ew::UnaryOp::Silu};
  } else if (is_onnx(node, "HardSigmoid")) {
    // The HardSigmoid override's attributes and defaults (op_hard_sigmoid.cpp).
    const float alpha = node.info.get_float("alpha", 0.2f);
    const float beta = node.info.get_float("beta", 0.5f);
    if (alpha == 1.0f / 6.0f && beta == 0.5f) {
      args = ew::UnaryArgs{ew::UnaryOp::HardSwish};
    } else {
      args = ew::UnaryArgs{ew::UnaryOp::HardSigmoidGate, alpha, beta};
    }
  } else {
    return false;
  }
  x = node.inputs[0];
  return true;
}

}  // namespace

void run_self_gate_fuse(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    const CompiledNode& mul = nodes[i];
    if (!is_onnx(mul, "Mul") || mul.inputs.size() != 2) continue;
    int x = -1;
    ew::UnaryArgs args;
    bool found = false;
    for (std::size_t side = 0; side < 2 && !found; ++side) {
      found = gate_of(graph, mul.inputs[side], x, args) && mul.inputs[1 - side] == x;
    }
    if (!found || !graph.known_f32(x)) continue;
    // The fused node takes the Mul's place (after x's producer) and NodeInfo; the gate is now
    // unread and goes with remove_unread().
    // Fast mode: the fast sigmoid, as the separate Sigmoid override computes it (UnaryArgs::fast).
    nodes[i].kernel = std::make_unique<SelfGateOp>(ew::for_mode(args, nodes[i].info.exact()), graph.config());
    graph.set_inputs(i, {x});
  }
}

}  // namespace onemodel::opt
