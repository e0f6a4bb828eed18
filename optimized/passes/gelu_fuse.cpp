// `gelu` (graph-passes.md, does not preserve bits, so fast mode only): the opset-17 export of
// Gelu, y = (x * (1 + erf(x / sqrt(2)))) * 0.5, becomes one GeluOp (erf form); so does the tanh
// form, y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) with x^3 as Pow(x, 3) or
// x * (x * x) (torch's approximate='tanh' at opset 17, GPT-2's exports; docs/design.md "GELU, tanh
// form"), run by the Gelu tanh kernel (the same three factors in any grouping). Matched in the
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

GeluOp::GeluOp(const OptimizedConfig& config, ew::UnaryOp form) : config_(config), form_(form) {
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
  ew::unary_f32(KernelContext{config_.isa, context.exact(), config_.pool},
                ew::for_mode(ew::UnaryArgs{form_}, context.exact()),
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
  const bool unary = std::string_view(op) == "Erf" || std::string_view(op) == "Tanh";
  if (!is_onnx(node, op) || node.inputs.size() != (unary ? 1u : 2u)) return nullptr;
  return &node;
}

// The operand of the two-input node `node` other than the scalar constant near `c`, or -1.
int other_than(const PassGraph& graph, const CompiledNode& node, double c) {
  if (scalar_near(graph, node.inputs[1], c)) return node.inputs[0];
  if (scalar_near(graph, node.inputs[0], c)) return node.inputs[1];
  return -1;
}

// `cube` is x^3 for this x: Pow(x, 3), Mul(x, Mul(x, x)) or Mul(Mul(x, x), x).
bool is_cube_of(PassGraph& graph, int cube, int x) {
  if (const CompiledNode* pow = inner(graph, cube, "Pow")) {
    return pow->inputs[0] == x && scalar_near(graph, pow->inputs[1], 3.0);
  }
  const CompiledNode* mul = inner(graph, cube, "Mul");
  if (mul == nullptr) return false;
  for (int side = 0; side < 2; ++side) {
    if (mul->inputs[static_cast<std::size_t>(side)] != x) continue;
    const CompiledNode* square = inner(graph, mul->inputs[static_cast<std::size_t>(1 - side)], "Mul");
    if (square != nullptr && square->inputs[0] == x && square->inputs[1] == x) return true;
  }
  return false;
}

// `t` is tanh(sqrt(2/pi) * (x + 0.044715 * x^3)) for some x (the tanh form as torch's
// approximate='tanh' export and GPT-2's exports write it, each Mul and Add in either operand
// order): returns x, or -1.
int tanh_input(PassGraph& graph, int t) {
  const CompiledNode* tanh = inner(graph, t, "Tanh");
  if (tanh == nullptr) return -1;
  const CompiledNode* scale = inner(graph, tanh->inputs[0], "Mul");
  if (scale == nullptr) return -1;
  const CompiledNode* sum = inner(graph, other_than(graph, *scale, std::sqrt(2.0 / 3.14159265358979323846)), "Add");
  if (sum == nullptr) return -1;
  for (int side = 0; side < 2; ++side) {
    const int x = sum->inputs[static_cast<std::size_t>(side)];
    const CompiledNode* term = inner(graph, sum->inputs[static_cast<std::size_t>(1 - side)], "Mul");
    if (x >= 0 && term != nullptr && is_cube_of(graph, other_than(graph, *term, 0.044715), x)) return x;
  }
  return -1;
}

// `e` is 1 + erf(x / sqrt2) (form GeluErf) or 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)) (form
// GeluTanh) for some x: returns x and sets `form`, or -1.
int one_plus_term_input(PassGraph& graph, int e, ew::UnaryOp& form) {
  const CompiledNode* add = inner(graph, e, "Add");
  if (add == nullptr) return -1;
  const int erf_out = other_than(graph, *add, 1.0);
  if (const int x = tanh_input(graph, erf_out); x >= 0) {
    form = ew::UnaryOp::GeluTanh;
    return x;
  }
  form = ew::UnaryOp::GeluErf;
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
// three factors x, (1 + erf(x / sqrt2)) or (1 + tanh(...)), and 0.5 in any grouping and order.
int match(PassGraph& graph, const CompiledNode& top, ew::UnaryOp& form) {
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
        if (x >= 0 && one_plus_term_input(graph, leaves[term], form) == x && graph.known_f32(x)) return x;
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
    ew::UnaryOp form = ew::UnaryOp::GeluErf;
    const int x = match(graph, nodes[i], form);
    if (x < 0) continue;
    // The fused node takes the last Mul's place (after x's producer) and NodeInfo; the chain's
    // other nodes are now unread and go with remove_unread().
    nodes[i].kernel = std::make_unique<GeluOp>(graph.config(), form);
    graph.set_inputs(i, {x});
  }
}

}  // namespace onemodel::opt
