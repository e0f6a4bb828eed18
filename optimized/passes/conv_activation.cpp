// `conv-activation` (graph-passes.md, bit-preserving): a Conv followed by one activation (the
// linear-pack-fuse list) becomes one Conv whose kernels apply the activation to the finished
// outputs (op_conv.cpp, conv_activation.hpp). Only when the Conv's result is read by nothing
// else and is not a graph output, and its input is known to be float32. Shape-free.
#include "optimized/ops/conv_activation.hpp"
#include "optimized/passes/activation_args.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {

void run_conv_activation(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    CompiledNode& conv = nodes[i];
    const IrNode& ir = *conv.ir;
    if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "Conv") continue;
    if (conv.outputs.size() != 1 || conv.outputs[0] < 0 || conv.inputs.empty() || !graph.known_f32(conv.inputs[0])) continue;
    const int value = conv.outputs[0];
    if (graph.is_output(value)) continue;
    const int reader = graph.only_reader(value);
    if (reader < 0) continue;
    CompiledNode& act = nodes[static_cast<std::size_t>(reader)];
    ew::UnaryArgs args;
    if (act.inputs[0] != value || !activation_args(graph, act, args)) continue;
    std::vector<Tensor> extra;
    for (std::size_t k = 1; k < act.inputs.size(); ++k) {
      const Tensor* bound = act.inputs[k] >= 0 ? graph.constant(act.inputs[k]) : nullptr;
      extra.push_back(bound != nullptr ? *bound : Tensor());
    }
    conv.kernel = make_optimized_conv_with_activation(conv.info, graph.config(),
                                                      FusedActivation{std::move(act.kernel), act.info, args, std::move(extra)});
    const int out = act.outputs[0];
    graph.remove_node(static_cast<std::size_t>(reader));
    graph.set_outputs(i, {out});
  }
}

}  // namespace onemodel::opt
