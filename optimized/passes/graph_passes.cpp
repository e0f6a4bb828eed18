// The pass table and its driver (graph-passes.md "Levels and exact mode").
#include <span>
#include <string_view>

#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

// graph-passes.md "Passes, in order". gelu runs before
// linear-pack-fuse so that MatMul + bias + Gelu becomes one packed product with the Gelu in its
// epilogue. The three "no" rows run in fast mode only. The last field: the pass serves models with
// half values (spec/half-precision.md section 8.6).
constexpr GraphPass kPasses[] = {
    // Fast mode only, first: before constant-fold turns the weights' DequantizeLinear into float
    // constants (graph-passes.md).
    {"qdq", OptimizationLevel::All, false, run_qdq},
    {"matmul-integer-fusion", OptimizationLevel::All, true, run_matmul_integer_fusion},
    {"constant-fold", OptimizationLevel::Basic, true, run_constant_fold},
    {"conv-batchnorm-fold", OptimizationLevel::All, false, run_conv_batchnorm_fold},
    // Again, so the folded weights and bias are plain constants.
    {"constant-fold", OptimizationLevel::Basic, true, run_constant_fold},
    // Not in the source's table (docs/design.md, "BatchNormalization epilogue"): bit-preserving,
    // so in exact mode it takes every Conv -> BatchNormalization; in fast mode the ones the fold
    // above left. Before self-gate and conv-activation, which then add the activation after it.
    // Not for half models: the adapter rounds the Conv's result to 16 bits before the normalization.
    {"conv-batchnorm-epilogue", OptimizationLevel::All, true, run_conv_batchnorm_epilogue},
    {"gelu", OptimizationLevel::All, false, run_gelu_fuse},
    {"attention", OptimizationLevel::All, false, run_attention_fuse},
    // Not in the source's table (docs/design.md, "Self-gated activations"): before the two product
    // passes, so that a Conv or MatMul followed by x * Sigmoid(x) takes the SiLU into its epilogue.
    // Not for half models: the adapter rounds the gate to 16 bits before the Mul.
    {"self-gate", OptimizationLevel::All, true, run_self_gate_fuse},
    // Not in the source's table (docs/design.md, "Residual Add"): before conv-activation, so that
    // Conv -> Add(residual) -> Relu takes the Add and the Relu together. Not for half models.
    {"conv-residual", OptimizationLevel::All, true, run_conv_residual_fuse},
    {"linear-pack-fuse", OptimizationLevel::All, true, run_linear_pack_fuse, true},
    // Not in the source's table (docs/design.md, "Transposed product operands"): after
    // linear-pack-fuse, so a product with a constant B is packed first. Not for half models.
    {"matmul-transpose", OptimizationLevel::All, true, run_matmul_transpose_fuse},
    {"conv-activation", OptimizationLevel::All, true, run_conv_activation, true},
    // Not in the source's table (docs/design.md, "BatchNormalization and its activation in one
    // pass"): after conv-batchnorm-epilogue and conv-activation, so a Conv takes its
    // BatchNormalization and activation first; this takes the BatchNormalizations no Conv reaches
    // (DenseNet's, after a Concat). Before elementwise-chain, which would otherwise start a chain
    // at the activation. Not for half models: the adapter rounds the normalization's result to 16
    // bits first.
    {"batchnorm-activation", OptimizationLevel::All, true, run_batchnorm_activation},
    // Not in the source's table (docs/design.md, "Element-wise chains"): last, so the single
    // activations above are absorbed by their product first.
    {"elementwise-chain", OptimizationLevel::All, true, run_elementwise_chain_fuse, true},
    // Not in the source's table (docs/design.md "Channel-blocked activations"): fast mode on the
    // AVX-512 path, after every pass that fuses into a Conv, so the blocked nodes take the
    // activation and residual their Conv had.
    {"nchwc-layout", OptimizationLevel::All, false, run_nchwc_layout},
};

int rank_of(OptimizationLevel level) {
  switch (level) {
    case OptimizationLevel::None: return 0;
    case OptimizationLevel::Basic: return 1;
    case OptimizationLevel::All: return 2;
  }
  return 0;
}

// A model of opset 6 or earlier in the default domain: its Add, Sub, Mul, Div, Pow, PRelu and Gemm
// may carry the legacy broadcast and axis attributes (spec/ops/elementwise.md section 11), which
// the fusion passes do not read. Such models get constant folding only, which runs the nodes' own
// kernels.
bool legacy_opset_model(PassGraph& graph) {
  for (const CompiledNode& node : graph.nodes()) {
    if ((node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->opset < 7) return true;
  }
  return false;
}

}  // namespace

std::span<const GraphPass> all_graph_passes() { return kPasses; }

void run_graph_passes(PassGraph& graph) {
  const SessionOptions& options = graph.options();
  const bool legacy = legacy_opset_model(graph);
  for (const GraphPass& pass : kPasses) {
    if (legacy && std::string_view(pass.name) != "constant-fold") continue;
    if (rank_of(options.optimization_level) < rank_of(pass.min_level)) continue;
    // graph-passes.md: in exact mode only the passes that preserve bits run.
    if (options.mode == ExecutionMode::Exact && !pass.preserves_bits) continue;
    // spec/half-precision.md section 8.6: in a model with half values only the passes whose fused
    // kernels keep the adapter's roundings.
    if (graph.half_model() && !pass.serves_half_models) continue;
    pass.run(graph);
    graph.remove_unread();
  }
}

}  // namespace onemodel::opt
