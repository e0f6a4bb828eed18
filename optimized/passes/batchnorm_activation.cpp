// `batchnorm-activation` (spec/optimized-engine.md section 2, not in the source's table;
// docs/design.md "BatchNormalization and its activation in one pass"; bit-preserving, so it runs in
// both modes): a BatchNormalization in inference form followed by one activation (the
// linear-pack-fuse list, or a `self-gate` node) becomes one BatchNormalization node whose kernel
// applies the activation to each value right after x * a + shift (batch_norm_activation.hpp). The
// values are those the activation node would compute from the normalization's stored result, so no
// bit changes; what goes is one pass over the normalization's output in memory. It is for the
// BatchNormalizations no Conv takes: those of pre-activation networks (DenseNet's BN -> Relu ->
// Conv, whose input is a Concat), which `conv-batchnorm-epilogue` and `conv-activation` cannot
// reach, so it runs after them.
//
// Conditions: the BatchNormalization (opset 7 or later, where the override exists) has one wanted
// output, training_mode = 0 and, before opset 9, spatial = 1; X is known to be float32; its
// result is read by the activation alone (as its input 0) and is not a graph output. The
// statistics may be anything the node accepts: the fused kernel reads them at run time, as the
// override does, and hands what it does not serve to the reference kernel followed by the
// activation's own kernel. Not for models with half values (the adapter would round the
// normalization's result to 16 bits before the activation). Shape-free.
#include "optimized/ops/batch_norm_activation.hpp"
#include "optimized/passes/activation_args.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

bool fuse_batchnorm_activation_at(PassGraph& graph, std::size_t index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  CompiledNode& bn = nodes[index];
  const IrNode& ir = *bn.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "BatchNormalization" || ir.opset < 7) return false;
  if (bn.kernel == nullptr || bn.inputs.size() != 5 || bn.inputs[0] < 0 || bn.outputs.empty() || bn.outputs[0] < 0) {
    return false;
  }
  // An override that already carries an activation has nothing more to take.
  if (batch_norm_fused_label(*bn.kernel) != "BatchNormalization") return false;
  for (std::size_t i = 1; i < bn.outputs.size(); ++i) {
    if (bn.outputs[i] >= 0) return false;
  }
  if (bn.info.get_int("training_mode", 0) != 0) return false;
  if (ir.opset < 9 && bn.info.get_int("spatial", 1) != 1) return false;
  const int value = bn.outputs[0];
  if (graph.is_output(value) || !graph.known_f32(bn.inputs[0])) return false;
  const int reader = graph.only_reader(value);
  if (reader < 0) return false;
  CompiledNode& act = nodes[static_cast<std::size_t>(reader)];
  ew::UnaryArgs args;
  if (act.inputs.empty() || act.inputs[0] != value || !activation_args(graph, act, args)) return false;
  std::vector<Tensor> extra;
  for (std::size_t k = 1; k < act.inputs.size(); ++k) {
    const Tensor* bound = act.inputs[k] >= 0 ? graph.constant(act.inputs[k]) : nullptr;
    extra.push_back(bound != nullptr ? *bound : Tensor());
  }
  FusedActivation fused{std::move(act.kernel), act.info, args, std::move(extra), DType::F32};
  bn.kernel = make_optimized_batch_normalization_with_activation(bn.info, graph.config(), std::move(fused));
  const int out = act.outputs[0];
  graph.remove_node(static_cast<std::size_t>(reader));
  graph.set_outputs(index, {out});
  return true;
}

}  // namespace

void run_batchnorm_activation(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fuse_batchnorm_activation_at(graph, i);
  }
}

}  // namespace onemodel::opt
