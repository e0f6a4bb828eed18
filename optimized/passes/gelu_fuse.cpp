// `gelu` (graph-passes.md, does not preserve bits, so fast mode only): the opset-17 export of
// Gelu, y = (x * (1 + erf(x / sqrt(2)))) * 0.5, becomes one GeluOp (erf form). Matched in the
// operand orders torch emits (BERT's and Whisper's exports: Mul(Mul(x, 1 + erf), 0.5); also
// Mul(Mul(x, 0.5), 1 + erf) and Mul(x, Mul(1 + erf, 0.5))), with Div(x, sqrt2) or
// Mul(x, 1/sqrt2). Constants are scalars (rank 0, one element, float32) within 1e-6 relative of
// 0.5, 1, sqrt(2) (or 1/sqrt(2)); every intermediate value has exactly one reader and is not a
// graph output, so removing the chain removes nothing anyone else reads. Shape-free.
#include <cmath>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/passes/gelu_op.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {

GeluOp::GeluOp(const OptimizedConfig& config) : config_(config) {
  supports_exact = false;  // only made in fast mode (graph-passes.md "Levels and exact mode")
  in_place_input = 0;      // element-wise: each output depends on the same input element only
}

void GeluOp::infer(InferContext& context) const {
  context.require_type(0, {DType::F32});
  context.set_output(0, DType::F32, context.input_shape(0));
}

void GeluOp::run(RunContext& context) const {
  const Tensor x = context.input(0).contiguous();
  const Tensor& y = context.output(0);
  const std::size_t n = static_cast<std::size_t>(x.element_count());
  if (n == 0) return;
  ew::unary_f32(KernelContext{config_.isa, context.exact(), config_.pool}, ew::UnaryArgs{ew::UnaryOp::GeluErf},
                x.data<float>().data(), y.mutable_data<float>().data(), n);
}

namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op &&
         node.outputs.size() == 1 && node.outputs[0] >= 0;
}

// A float32 scalar constant within 1e-6 relative of `expected`.
bool scalar_near(const PassGraph& graph, int id, double expected) {
  const Tensor* t = graph.constant_value(id);
  if (t == nullptr || t->dtype() != DType::F32 || t->rank() != 0) return false;
  const double v = t->contiguous().data<float>()[0];
  return std::fabs(v - expected) <= 1e-6 * std::fabs(expected);
}

// The node producing `id` when it is an intermediate the chain may absorb: produced by a node of
// type `op`, read only once, not a graph output. Else nullptr.
const CompiledNode* inner(PassGraph& graph, int id, const char* op) {
  if (id < 0 || graph.is_output(id) || graph.readers(id) != 1) return nullptr;
  const int p = graph.producer(id);
  if (p < 0) return nullptr;
  const CompiledNode& node = graph.nodes()[static_cast<std::size_t>(p)];
  if (!is_onnx(node, op) || node.inputs.size() != (std::string_view(op) == "Erf" ? 1u : 2u)) return nullptr;
  return &node;
}

// `e` is 1 + erf(x / sqrt2) for some x: returns x, or -1.
int erf_term_input(PassGraph& graph, int e) {
  const CompiledNode* add = inner(graph, e, "Add");
  if (add == nullptr) return -1;
  int erf_out = -1;
  if (scalar_near(graph, add->inputs[1], 1.0)) erf_out = add->inputs[0];
  else if (scalar_near(graph, add->inputs[0], 1.0)) erf_out = add->inputs[1];
  const CompiledNode* erf = inner(graph, erf_out, "Erf");
  if (erf == nullptr) return -1;
  if (const CompiledNode* div = inner(graph, erf->inputs[0], "Div")) {
    return scalar_near(graph, div->inputs[1], std::sqrt(2.0)) ? div->inputs[0] : -1;
  }
  if (const CompiledNode* mul = inner(graph, erf->inputs[0], "Mul")) {
    const double half_root = 1.0 / std::sqrt(2.0);
    if (scalar_near(graph, mul->inputs[1], half_root)) return mul->inputs[0];
    if (scalar_near(graph, mul->inputs[0], half_root)) return mul->inputs[1];
  }
  return -1;
}

// The GELU input of the chain ending in the Mul `top`, or -1. The product of the two Muls has the
// three factors x, (1 + erf(x / sqrt2)) and 0.5 in any grouping and order.
int match(PassGraph& graph, const CompiledNode& top) {
  if (!is_onnx(top, "Mul") || top.inputs.size() != 2) return -1;
  for (int side = 0; side < 2; ++side) {
    const CompiledNode* mul = inner(graph, top.inputs[static_cast<std::size_t>(side)], "Mul");
    if (mul == nullptr) continue;
    const int leaves[3] = {top.inputs[static_cast<std::size_t>(1 - side)], mul->inputs[0], mul->inputs[1]};
    for (int half = 0; half < 3; ++half) {
      if (!scalar_near(graph, leaves[half], 0.5)) continue;
      for (int term = 0; term < 3; ++term) {
        if (term == half) continue;
        const int x = leaves[3 - half - term];
        if (x >= 0 && erf_term_input(graph, leaves[term]) == x && graph.known_f32(x)) return x;
      }
    }
  }
  return -1;
}

}  // namespace

void run_gelu_fuse(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    const int x = match(graph, nodes[i]);
    if (x < 0) continue;
    // The fused node takes the last Mul's place (after x's producer) and NodeInfo; the chain's
    // other nodes are now unread and go with remove_unread().
    nodes[i].kernel = std::make_unique<GeluOp>(graph.config());
    graph.set_inputs(i, {x});
  }
}

}  // namespace onemodel::opt
