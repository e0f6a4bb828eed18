// `conv-residual` (docs/design.md "Residual Add"; spec/optimized-engine.md section 2;
// bit-preserving, so it also runs in exact mode): the residual block's end as ResNet, ResNeXt,
// RegNet and MnasNet exports write it, Conv -> Add(other tensor) [-> activation], becomes one Conv
// node reading X, W, B (or omitted) and the residual R, whose kernels add R to each finished tile
// (im2col + product) or output plane (depthwise) after the bias and then apply the activation.
//
// Conditions: a Conv of the default domain with X known to be float32 and its result read by the
// Add alone and not a graph output; the Add's other operand R is not that result, not a constant
// (a constant is a bias, usually broadcast), and known to be float32; an activation (the list of
// activation_args.cpp, the self-gate node included) is taken when it is the Add result's only
// reader and that result is not a graph output. Not in a model with half values. The fused node
// takes the Add's place in the node list (R may be made after the Conv) and the Conv's name.
//
// Why bits are kept: the Conv's finished values are the unfused Conv's (the epilogue runs after
// each output's whole sum and bias, exactly as the separate node stores them); the addition is the
// Add override's own element-wise call on them and R, operands in the Add's order (one rounded
// addition, canonical NaN); the activation is its override's call on the sums (activation_args:
// the same function in each mode). Shapes are not known here: at run time a residual that is not
// of the output's shape and float32 (a broadcasting Add) runs the separate nodes in order - the
// Conv into scratch, the Add node's kernel, the activation's kernel - and the output's shape is
// the Add's own infer() on the Conv's result and R. The output never shares R's memory: the Conv's
// kernel names no in-place input, so the memory planner gives it a block of its own
// (spec/optimized-engine.md section 4 rules 2 and 3).
#include "optimized/ops/conv_activation.hpp"
#include "optimized/passes/activation_args.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op &&
         node.outputs.size() == 1 && node.outputs[0] >= 0;
}

}  // namespace

void run_conv_residual_fuse(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    CompiledNode& conv = nodes[i];
    if (!is_onnx(conv, "Conv") || conv.inputs.size() < 2 || conv.inputs.size() > 3) continue;
    if (conv.inputs[0] < 0 || conv.inputs[1] < 0 || !graph.known_f32(conv.inputs[0])) continue;
    const int value = conv.outputs[0];
    if (graph.is_output(value)) continue;
    const int add_index = graph.only_reader(value);
    if (add_index < 0) continue;
    CompiledNode& add = nodes[static_cast<std::size_t>(add_index)];
    if (!is_onnx(add, "Add") || add.inputs.size() != 2) continue;
    const bool residual_first = add.inputs[1] == value;
    const int residual = add.inputs[residual_first ? 0 : 1];
    if (residual < 0 || residual == value || graph.constant(residual) != nullptr || !graph.known_f32(residual)) {
      continue;
    }
    // The activation after the Add, when the sum goes to it alone.
    std::unique_ptr<FusedActivation> activation;
    int act_index = -1;
    int out = add.outputs[0];
    if (!graph.is_output(out)) {
      const int reader = graph.only_reader(out);
      ew::UnaryArgs args;
      if (reader >= 0 && nodes[static_cast<std::size_t>(reader)].inputs[0] == out &&
          activation_args(graph, nodes[static_cast<std::size_t>(reader)], args)) {
        CompiledNode& act = nodes[static_cast<std::size_t>(reader)];
        std::vector<Tensor> extra;
        for (std::size_t k = 1; k < act.inputs.size(); ++k) {
          const Tensor* bound = act.inputs[k] >= 0 ? graph.constant(act.inputs[k]) : nullptr;
          extra.push_back(bound != nullptr ? *bound : Tensor());
        }
        activation = std::make_unique<FusedActivation>(
            FusedActivation{std::move(act.kernel), act.info, args, std::move(extra), DType::F32});
        act_index = reader;
        out = act.outputs[0];
      }
    }
    FusedResidual fused{std::move(add.kernel), add.info, residual_first};
    std::vector<int> inputs = {conv.inputs[0], conv.inputs[1], conv.inputs.size() > 2 ? conv.inputs[2] : -1,
                               residual};
    // The fused node in the Add's slot: every input is made before it (R included).
    // A Conv that took its BatchNormalization (`conv-batchnorm-epilogue`, run before) keeps it,
    // before the Add.
    std::shared_ptr<const FusedNorm> norm = conv_fused_norm(*conv.kernel);
    add.kernel = make_optimized_conv_with_residual(conv.info, graph.config(), std::move(fused), std::move(norm),
                                                   std::move(activation));
    add.ir = conv.ir;
    add.info = conv.info;
    graph.remove_node(i);
    if (act_index >= 0) graph.remove_node(static_cast<std::size_t>(act_index));
    graph.set_inputs(static_cast<std::size_t>(add_index), std::move(inputs));
    graph.set_outputs(static_cast<std::size_t>(add_index), {out});
  }
}

}  // namespace onemodel::opt
