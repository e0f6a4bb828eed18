// `conv-activation` (graph-passes.md, bit-preserving): a Conv followed by one activation (the
// linear-pack-fuse list) becomes one Conv whose kernels apply the activation to the finished
// outputs (op_conv.cpp, conv_activation.hpp). Only when the Conv's result is read by nothing
// else and is not a graph output, and its input is known to be float32 - or, in a model with half
// values, float16 or bfloat16: the fused Conv then rounds its result through that type before the
// activation and is wrapped by the Conv's adapter (spec/half-precision.md section 8.6). Shape-free.
#include <optional>

#include "core/graph/half_adapter.hpp"
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
    if (conv.outputs.size() != 1 || conv.outputs[0] < 0 || conv.inputs.empty()) continue;
    // A `conv-residual` node (a fourth input, R) has already taken what follows its Add.
    if (conv.inputs.size() > 3) continue;
    // X float32; or, in a model with half values, float16 or bfloat16 with the Conv wrapped by the
    // adapter (spec/half-precision.md section 8.6).
    const std::optional<DType> x_type = graph.known_type(conv.inputs[0]);
    if (!x_type) continue;
    const bool wrapped = &unwrap_half_adapter(*conv.kernel) != conv.kernel.get();
    if (wrapped) {
      // W and B of X's type (ONNX's T), so that the adapter's storage type is X's: known, or the
      // node is left alone.
      bool same = true;
      for (std::size_t k = 1; k < conv.inputs.size() && k < 3; ++k) {
        same = same && (conv.inputs[k] < 0 || graph.known_type(conv.inputs[k]) == x_type);
      }
      if (!same) continue;
    } else if (*x_type != DType::F32) {
      continue;
    }
    const bool half = *x_type != DType::F32;
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
    FusedActivation fused{std::move(act.kernel), act.info, args, std::move(extra), half ? *x_type : DType::F32};
    // A Conv that took its BatchNormalization (`conv-batchnorm-epilogue`) keeps it, before the
    // activation.
    std::shared_ptr<const FusedNorm> norm = conv_fused_norm(unwrap_half_adapter(*conv.kernel));
    std::unique_ptr<OpKernel> kernel =
        norm != nullptr ? make_optimized_conv_with_norm(conv.info, graph.config(), std::move(norm),
                                                        std::make_unique<FusedActivation>(std::move(fused)))
                        : make_optimized_conv_with_activation(conv.info, graph.config(), std::move(fused));
    // In a model with half values the fused node keeps the Conv's adapter: X, W and B widened and
    // the output rounded, as for the Conv alone.
    conv.kernel = wrapped ? rewrap_half_adapter(*conv.kernel, std::move(kernel)) : std::move(kernel);
    const int out = act.outputs[0];
    graph.remove_node(static_cast<std::size_t>(reader));
    graph.set_outputs(i, {out});
  }
}

}  // namespace onemodel::opt
