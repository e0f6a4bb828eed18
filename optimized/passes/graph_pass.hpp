// A graph pass and the fixed table of them (graph-runtime.md section 6, graph-passes.md
// "Passes, in order"). To add a pass, write optimized/passes/<name>.cpp and add it to the table
// in graph_passes.cpp.
#pragma once

#include <span>

#include "optimized/passes/pass_graph.hpp"

namespace onemodel::opt {

struct GraphPass {
  const char* name;
  OptimizationLevel min_level;
  // Results identical with and without the pass, in both modes (only these run in exact mode).
  bool preserves_bits;
  void (*run)(PassGraph& graph);
  // Runs in a model with half values too (spec/half-precision.md section 8.6): its fused kernels
  // round to the storage type after every replaced node, as the adapter does between them.
  bool serves_half_models = false;
};

// The passes in table order.
std::span<const GraphPass> all_graph_passes();

// Runs the passes the session's level and mode select, in table order, removing the nodes
// nothing reads after each.
void run_graph_passes(PassGraph& graph);

// The passes (one file each).
void run_qdq(PassGraph& graph);
void run_constant_fold(PassGraph& graph);
void run_matmul_integer_fusion(PassGraph& graph);
void run_conv_batchnorm_fold(PassGraph& graph);
void run_conv_batchnorm_epilogue(PassGraph& graph);
void run_gelu_fuse(PassGraph& graph);
void run_attention_fuse(PassGraph& graph);
void run_self_gate_fuse(PassGraph& graph);
void run_conv_residual_fuse(PassGraph& graph);
void run_linear_pack_fuse(PassGraph& graph);
void run_matmul_transpose_fuse(PassGraph& graph);
void run_conv_activation(PassGraph& graph);
void run_batchnorm_activation(PassGraph& graph);
void run_elementwise_chain_fuse(PassGraph& graph);
void run_nchwc_layout(PassGraph& graph);

}  // namespace onemodel::opt
