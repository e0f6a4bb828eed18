// `linear-pack-fuse` (graph-passes.md, bit-preserving): MatMul, or Gemm with alpha = 1 and no
// transA, with a constant 2-D float32 (or compact) B, then optionally an Add of a constant bias along the last
// axis, then optionally an Add of another float32 value R
// (a residual, docs/design.md "Residual Add": not in a model with half values; the fused node then
// takes the Add's place, since R may be made after the product), then optionally one activation,
// becomes one LinearOp. A step is absorbed only when the
// value between the two nodes is read by nothing else and is not a graph output, and only when A
// is known to be float32 (else the graph is left as it is). In a model with half values, also A
// and B of one 16-bit type with a bias of that type: a LinearOp whose epilogue keeps the adapter's
// roundings (spec/half-precision.md section 8.6). Nothing here reads input shapes.
#include <optional>

#include "core/graph/half_convert.hpp"
#include "optimized/passes/activation_args.hpp"
#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/linear_op.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const IrNode& node, const char* op) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == op;
}

// The constant along the last axis of an n-wide product: of the product's type (float32, or the
// storage type of a half model's product), extents all 1 but the last, which is n (so the
// broadcast adds leading 1-axes at most and never repeats the product).
const Tensor* bias_vector(const PassGraph& graph, int id, std::int64_t n, DType type) {
  const Tensor* t = graph.constant(id);
  if (t == nullptr || t->dtype() != type || t->rank() == 0 || t->shape()[t->rank() - 1] != n) return nullptr;
  for (int i = 0; i + 1 < t->rank(); ++i) {
    if (t->shape()[i] != 1) return nullptr;
  }
  return t;
}

// The bias's values as binary32 (a 16-bit one widened, which is exact: the adapter's view of it).
std::vector<float> bias_floats(const Tensor& bias) {
  const Tensor dense = bias.dtype() == DType::F32 ? bias.contiguous() : widen_tensor(bias);
  return std::vector<float>(dense.data<float>().begin(), dense.data<float>().end());
}

// The value after `node` may be absorbed by its reader: one reader, not a graph output.
int absorbable_reader(const PassGraph& graph, int value) {
  if (value < 0 || graph.is_output(value)) return -1;
  return graph.only_reader(value);
}

// The product node (MatMul or Gemm) at `index`, when it qualifies; fills k, n and the spec.
bool product_qualifies(const PassGraph& graph, const CompiledNode& node, std::int64_t& n, LinearSpec& spec) {
  const IrNode& ir = *node.ir;
  const bool gemm = is_onnx(ir, "Gemm");
  if (!gemm && !is_onnx(ir, "MatMul")) return false;
  if (node.inputs.size() < 2 || node.outputs.size() != 1 || node.outputs[0] < 0) return false;
  const Tensor* b = graph.constant(node.inputs[1]);
  if (b == nullptr || b->rank() != 2 || b->element_count() == 0) return false;
  // A compact weight (spec/session.md section 9) qualifies too: LinearOp keeps it 16-bit.
  const bool compact = graph.is_compact(node.inputs[1]) && (b->dtype() == DType::F16 || b->dtype() == DType::BF16);
  const std::optional<DType> a_type = graph.known_type(node.inputs[0]);
  if (!a_type) return false;
  if (*a_type == DType::F32) {
    if (b->dtype() != DType::F32 && !compact) return false;
  } else if (graph.half_model() && !compact && b->dtype() == *a_type) {
    // A half model's product (spec/half-precision.md section 8.6): A and B of one 16-bit type.
    spec.storage = *a_type;
  } else {
    return false;
  }
  spec.trans_b = false;
  if (gemm) {
    // Gemm's epilogue computes alpha * acc first; with alpha = 1 that is acc itself.
    if (node.info.get_float("alpha", 1.0f) != 1.0f || node.info.get_int("transA", 0) != 0) return false;
    spec.trans_b = node.info.get_int("transB", 0) != 0;
  }
  n = spec.trans_b ? b->shape()[0] : b->shape()[1];
  // beta = 0: Gemm does not read C (spec/ops/products-conv.md section 5), so no bias is formed
  // (0 * inf would be NaN); C stays an input of the stage, whose infer checks its shape.
  const float beta = gemm ? node.info.get_float("beta", 1.0f) : 1.0f;
  if (gemm && node.inputs.size() > 2 && node.inputs[2] >= 0 && beta != 0.0f) {
    const Tensor* c = bias_vector(graph, node.inputs[2], n, spec.storage);
    if (c == nullptr || c->rank() > 2) return false;
    // beta * C formed once, with the multiply Gemm's epilogue does per element (op_gemm.cpp).
    spec.bias_kind = LinearSpec::Bias::GemmC;
    spec.bias = bias_floats(*c);
    for (float& value : spec.bias) value = beta * value;
  }
  return true;
}

// Fuses the chain starting at nodes[index] when it qualifies; true when it did.
bool fuse_at(PassGraph& graph, std::size_t index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  std::int64_t n = 0;
  LinearSpec spec;
  if (!product_qualifies(graph, nodes[index], n, spec)) return false;

  std::vector<std::size_t> chain{index};
  std::vector<int> fused_inputs(nodes[index].inputs.begin(), nodes[index].inputs.end());
  // The Gemm's C stays an input of stage 0 (its infer checks it); the LinearOp reads spec.bias.
  std::vector<std::vector<int>> stage_inputs(1);
  for (std::size_t i = 0; i < fused_inputs.size(); ++i) {
    stage_inputs[0].push_back(fused_inputs[i] < 0 ? -1 : static_cast<int>(i));
  }
  int current = nodes[index].outputs[0];

  // Appends the node at `next` as a stage reading `current` in place of the chained input.
  auto absorb = [&](std::size_t next) {
    std::vector<int> inputs;
    for (int id : nodes[next].inputs) {
      if (id == current) {
        inputs.push_back(LinearStage::kPrevious);
      } else if (id < 0) {
        inputs.push_back(-1);
      } else {
        fused_inputs.push_back(id);
        inputs.push_back(static_cast<int>(fused_inputs.size() - 1));
      }
    }
    stage_inputs.push_back(std::move(inputs));
    chain.push_back(next);
    current = nodes[next].outputs[0];
  };

  int reader = absorbable_reader(graph, current);
  if (reader >= 0 && spec.bias_kind == LinearSpec::Bias::None && is_onnx(*nodes[static_cast<std::size_t>(reader)].ir, "Add")) {
    const CompiledNode& add = nodes[static_cast<std::size_t>(reader)];
    if (add.inputs.size() == 2 && add.outputs.size() == 1 && add.outputs[0] >= 0) {
      const int other = add.inputs[0] == current ? add.inputs[1] : add.inputs[0];
      if (const Tensor* bias = bias_vector(graph, other, n, spec.storage)) {
        spec.bias_kind = LinearSpec::Bias::AddNode;
        spec.bias = bias_floats(*bias);
        absorb(static_cast<std::size_t>(reader));
        reader = absorbable_reader(graph, current);
      }
    }
  }
  // A residual Add after the product and its bias (docs/design.md "Residual Add"): the Add's other
  // operand is any non-constant float32 value but the chained one. Float32 products only (not in a
  // model with half values, whose adapter would round between the nodes).
  std::size_t slot = index;
  if (reader >= 0 && !graph.half_model() && spec.storage == DType::F32 &&
      is_onnx(*nodes[static_cast<std::size_t>(reader)].ir, "Add")) {
    const CompiledNode& add = nodes[static_cast<std::size_t>(reader)];
    if (add.inputs.size() == 2 && add.outputs.size() == 1 && add.outputs[0] >= 0 && add.inputs[0] != add.inputs[1]) {
      const bool residual_first = add.inputs[1] == current;
      const int other = add.inputs[residual_first ? 0 : 1];
      if (other >= 0 && graph.constant(other) == nullptr && graph.constant_value(other) == nullptr &&
          graph.known_f32(other)) {
        spec.residual_first = residual_first;
        spec.residual_stage = chain.size();
        absorb(static_cast<std::size_t>(reader));
        spec.residual_input = static_cast<int>(fused_inputs.size() - 1);
        // R may be made after the product: the fused node takes the Add's slot, after all it reads.
        slot = chain.back();
        reader = absorbable_reader(graph, current);
      }
    }
  }
  if (reader >= 0 && activation_args(graph, nodes[static_cast<std::size_t>(reader)], spec.activation)) {
    spec.has_activation = true;
    absorb(static_cast<std::size_t>(reader));
  }
  // A product alone is fused too (no epilogue): B is then packed once here and released instead
  // of being kept beside a packed copy per plan by the MatMul and Gemm overrides
  // (graph-passes.md "Memory").
  if (spec.bias_kind == LinearSpec::Bias::None) spec.bias.assign(static_cast<std::size_t>(n), 0.0f);

  std::vector<LinearStage> stages;
  for (std::size_t s = 0; s < chain.size(); ++s) {
    CompiledNode& node = nodes[chain[s]];
    stages.push_back(LinearStage{std::move(node.kernel), node.info, std::move(stage_inputs[s])});
  }
  const int b_id = fused_inputs[1];
  auto kernel = std::make_unique<LinearOp>(std::move(stages), std::move(spec), *graph.constant(b_id), graph.config());
  fused_inputs[1] = -1;  // the node reads the packed copy only
  // The absorbed nodes go; the fused node keeps the product's place (and NodeInfo), which is
  // after everything it reads when the absorbed nodes' other inputs are constants; with a residual
  // it takes the residual Add's place, with the product's IR node and NodeInfo.
  if (slot != index) {
    CompiledNode& head = nodes[index];
    CompiledNode& target = nodes[slot];
    target.ir = head.ir;
    target.info = head.info;
  }
  nodes[slot].kernel = std::move(kernel);
  for (std::size_t s = 0; s < chain.size(); ++s) {
    if (chain[s] != slot) graph.remove_node(chain[s]);
  }
  graph.set_inputs(slot, std::move(fused_inputs));
  graph.set_outputs(slot, {current});
  // graph-passes.md "Memory": the packed copy replaces B once nothing else reads it.
  graph.release_if_unread(b_id);
  return true;
}

}  // namespace

void run_linear_pack_fuse(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fuse_at(graph, i);
  }
}

}  // namespace onemodel::opt
