// `matmul-integer-fusion` (graph-passes.md, level All, bits preserved; spec-source int8.md, Graph
// rewrites): MatMulInteger -> Cast(to = FLOAT) -> Mul(scale) [-> Add(bias)], what
// onnxruntime.quantization.quantize_dynamic writes for every float MatMul (the scale is
// Mul(x_scale, w_scale), made by another node, sometimes after the MatMulInteger in node order),
// becomes one MatMulIntegerToFloat node placed at the position of the last absorbed node, after
// everything it reads. A step is absorbed only when the value between the two nodes is read by
// nothing else and is not a graph output; the Mul and the Add take either operand order. A
// constant scale or bias must be float32 and a scalar or a vector along the last axis (every
// extent 1 but the last, which is 1 or B's column count when B is constant), else the chain stops
// before that node (no Mul: nothing is fused). A value computed at run time is checked by the
// fused node itself, which runs the replaced nodes one after the other for any other form. Nothing
// here reads input shapes.
#include <optional>

#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/matmul_integer_to_float.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op;
}

// The value's only reader when it may be absorbed: one reader, not a graph output.
int absorbable_reader(const PassGraph& graph, int value) {
  if (value < 0 || graph.is_output(value)) return -1;
  return graph.only_reader(value);
}

// A binary node reading `current` once and another value: that value's id and whether it is the
// node's first operand; nullopt when the node does not have that form.
std::optional<std::pair<int, bool>> other_operand(const CompiledNode& node, int current) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.outputs[0] < 0) return std::nullopt;
  if (node.inputs[0] == current && node.inputs[1] >= 0 && node.inputs[1] != current) {
    return std::make_pair(node.inputs[1], false);
  }
  if (node.inputs[1] == current && node.inputs[0] >= 0) return std::make_pair(node.inputs[0], true);
  return std::nullopt;
}

// False for a constant that is not a float32 scalar or vector along the last axis (n: B's column
// count, or -1 when B is not constant). A run-time value passes: the fused node checks it.
bool row_operand_or_runtime(const PassGraph& graph, int id, std::int64_t n) {
  if (graph.is_compact(id)) return false;
  const Tensor* t = graph.constant(id);
  if (t == nullptr) {
    const std::optional<DType> type = graph.known_type(id);
    return !type || *type == DType::F32;  // a known other float type cannot be multiplied here
  }
  if (t->dtype() != DType::F32) return false;
  for (int i = 0; i + 1 < t->rank(); ++i) {
    if (t->shape()[i] != 1) return false;
  }
  const std::int64_t last = t->rank() == 0 ? 1 : t->shape()[t->rank() - 1];
  return last == 1 || n < 0 || last == n;
}

bool fuse_at(PassGraph& graph, std::size_t index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  const CompiledNode& product = nodes[index];
  if (!is_onnx(product, "MatMulInteger") || product.inputs.size() < 2 || product.inputs.size() > 4) return false;
  if (product.outputs.size() != 1 || product.outputs[0] < 0 || product.inputs[0] < 0 || product.inputs[1] < 0) return false;
  // B's column count when B is a constant of rank 2 or more (its last extent).
  std::int64_t n = -1;
  if (const Tensor* b = graph.constant(product.inputs[1]); b != nullptr && b->rank() >= 2) n = b->shape()[b->rank() - 1];

  const int cast_at = absorbable_reader(graph, product.outputs[0]);
  if (cast_at < 0) return false;
  const CompiledNode& cast = nodes[static_cast<std::size_t>(cast_at)];
  // Cast to float32 only (int8.md: float(acc)); a Cast to another type is left as written.
  if (!is_onnx(cast, "Cast") || cast.inputs.size() != 1 || cast.outputs.size() != 1 || cast.outputs[0] < 0 ||
      cast.info.get_int("to", 0) != static_cast<std::int64_t>(DType::F32)) {
    return false;
  }
  const int mul_at = absorbable_reader(graph, cast.outputs[0]);
  if (mul_at < 0 || !is_onnx(nodes[static_cast<std::size_t>(mul_at)], "Mul")) return false;
  const auto scale = other_operand(nodes[static_cast<std::size_t>(mul_at)], cast.outputs[0]);
  if (!scale || !row_operand_or_runtime(graph, scale->first, n)) return false;

  MatMulIntegerToFloatSpec spec;
  spec.scale_first = scale->second;
  std::vector<std::size_t> chain{index, static_cast<std::size_t>(cast_at), static_cast<std::size_t>(mul_at)};
  int out = nodes[static_cast<std::size_t>(mul_at)].outputs[0];
  int bias_id = -1;
  const int add_at = absorbable_reader(graph, out);
  if (add_at >= 0 && is_onnx(nodes[static_cast<std::size_t>(add_at)], "Add")) {
    const auto bias = other_operand(nodes[static_cast<std::size_t>(add_at)], out);
    if (bias && row_operand_or_runtime(graph, bias->first, n)) {
      spec.has_bias = true;
      spec.bias_first = bias->second;
      bias_id = bias->first;
      chain.push_back(static_cast<std::size_t>(add_at));
      out = nodes[static_cast<std::size_t>(add_at)].outputs[0];
    }
  }

  // Fused inputs: A, B, zero points (MatMulInteger's numbering, -1 when omitted), scale, bias.
  std::vector<int> fused_inputs{product.inputs[0], product.inputs[1], -1, -1, scale->first, bias_id};
  std::vector<int> product_stage;
  for (std::size_t i = 0; i < product.inputs.size(); ++i) {
    if (i >= 2) fused_inputs[i] = product.inputs[i];
    product_stage.push_back(product.inputs[i] < 0 ? -1 : static_cast<int>(i));
  }
  constexpr int kPrev = LinearStage::kPrevious;
  const int s = static_cast<int>(MatMulIntegerToFloat::kScale), b = static_cast<int>(MatMulIntegerToFloat::kBias);
  std::vector<std::vector<int>> stage_inputs{product_stage, {kPrev}, spec.scale_first ? std::vector<int>{s, kPrev} : std::vector<int>{kPrev, s}};
  if (spec.has_bias) stage_inputs.push_back(spec.bias_first ? std::vector<int>{b, kPrev} : std::vector<int>{kPrev, b});

  std::vector<LinearStage> stages;
  for (std::size_t k = 0; k < chain.size(); ++k) {
    CompiledNode& node = nodes[chain[k]];
    stages.push_back(LinearStage{std::move(node.kernel), node.info, std::move(stage_inputs[k])});
  }
  // int8.md: the fused node is placed at the position of the last absorbed node (the scale and
  // the bias may be made after the product); it keeps the product's NodeInfo, as the fused
  // attention node keeps its P V product's.
  const std::size_t last = chain.back();
  nodes[last].info = nodes[index].info;
  nodes[last].ir = nodes[index].ir;
  nodes[last].kernel = std::make_unique<MatMulIntegerToFloat>(std::move(stages), spec, graph.config());
  for (std::size_t k = 0; k + 1 < chain.size(); ++k) graph.remove_node(chain[k]);
  graph.set_inputs(last, std::move(fused_inputs));
  graph.set_outputs(last, {out});
  return true;
}

}  // namespace

void run_matmul_integer_fusion(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fuse_at(graph, i);
  }
}

}  // namespace onemodel::opt
