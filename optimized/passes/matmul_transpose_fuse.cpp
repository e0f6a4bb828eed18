// `matmul-transpose` (docs/design.md "Transposed product operands"; spec/optimized-engine.md
// section 2; bit-preserving, so it also runs in exact mode): a MatMul whose A or B (or both) is the
// result of a Transpose becomes one TransposedMatMulOp reading the Transpose's input, whose product
// reads that operand through a strided view instead of the Transpose's copy. Exported attention
// writes Q, K^T and V this way: Transpose(Reshape(x W), perm [0, 2, 1, 3]) and [0, 2, 3, 1] (or
// [0, 1, 3, 2] of the head-split K).
//
// Conditions: a MatMul of the default domain with two inputs; a Transpose operand of the default
// domain whose result the MatMul alone reads (once) and which is not a graph output; both operands
// (the Transpose's input in its place) known to be float32 and neither a compact weight. After
// linear-pack-fuse, so a product with a constant B is a LinearOp first. Not in a model with half
// values. The fused node takes the MatMul's place (after the Transposes and what they read) and
// NodeInfo. Why bits are kept: transposed_matmul_op.hpp.
#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/transposed_matmul_op.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op;
}

// The index of the Transpose whose result is `value` and which the product may absorb, or -1.
int absorbable_transpose(const PassGraph& graph, int value, std::size_t product) {
  if (value < 0 || graph.is_output(value) || graph.only_reader(value) != static_cast<int>(product)) return -1;
  const int at = graph.producer(value);
  if (at < 0) return -1;
  const CompiledNode& t = graph.nodes()[static_cast<std::size_t>(at)];
  // A Transpose node still running its looked-up kernel (no pass made it something else).
  if (t.made_by_pass() || !is_onnx(t, "Transpose") || t.inputs.size() != 1 || t.outputs.size() != 1 || t.inputs[0] < 0) return -1;
  return at;
}

}  // namespace

void run_matmul_transpose_fuse(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    CompiledNode& mm = nodes[i];
    // The MatMul's own looked-up kernel: a node an earlier pass fused keeps the MatMul's IR node.
    if (mm.kernel == nullptr || mm.made_by_pass() || !is_onnx(mm, "MatMul") || mm.inputs.size() != 2 || mm.outputs.size() != 1 ||
        mm.outputs[0] < 0 || mm.inputs[0] < 0 || mm.inputs[1] < 0 || mm.inputs[0] == mm.inputs[1]) {
      continue;
    }
    std::array<int, 2> transposes{absorbable_transpose(graph, mm.inputs[0], i),
                                  absorbable_transpose(graph, mm.inputs[1], i)};
    if (transposes[0] < 0 && transposes[1] < 0) continue;
    std::vector<int> inputs(2);
    bool typed = true;
    for (std::size_t o = 0; o < 2; ++o) {
      inputs[o] = transposes[o] < 0 ? mm.inputs[o] : nodes[static_cast<std::size_t>(transposes[o])].inputs[0];
      typed = typed && graph.known_f32(inputs[o]) && !graph.is_compact(inputs[o]);
    }
    if (!typed) continue;
    std::array<TransposedOperand, 2> operands;
    for (std::size_t o = 0; o < 2; ++o) {
      if (transposes[o] < 0) continue;
      CompiledNode& t = nodes[static_cast<std::size_t>(transposes[o])];
      operands[o].transpose = std::move(t.kernel);
      operands[o].info = t.info;
      if (t.info.has("perm")) operands[o].perm = t.info.get_ints("perm");
    }
    mm.kernel = std::make_unique<TransposedMatMulOp>(std::move(mm.kernel), mm.info, std::move(operands), graph.config());
    for (int t : transposes) {
      if (t >= 0) graph.remove_node(static_cast<std::size_t>(t));
    }
    graph.set_inputs(i, std::move(inputs));
  }
}

}  // namespace onemodel::opt
