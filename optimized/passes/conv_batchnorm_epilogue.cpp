// `conv-batchnorm-epilogue` (not in the source's table; docs/design.md "BatchNormalization
// epilogue"; bit-preserving, so it runs in both modes): a Conv followed by a BatchNormalization in
// inference form becomes one Conv whose kernels apply the normalization to each finished tile
// (im2col + product) or output plane (depthwise), with the BatchNormalization kernel's own
// per-channel factor and shift (batchnorm::channel_affine, the reference's float32 operations in
// its order) and its own plane function (x * a, then + shift, each rounded, canonical NaN). The
// values are the ones the BatchNormalization node would store, so no bit changes; what goes is one
// pass over the Conv's output in memory. In fast mode `conv-batchnorm-fold` runs first and takes
// the cases it can; this pass takes the rest. `conv-activation` then adds an activation after the
// normalization.
//
// Conditions (those of the fold, plus the Conv override's): the Conv's result is read by the
// BatchNormalization alone and is not a graph output; X is known to be float32; W is a constant
// (float32, or a compact weight) of rank 3 or more, so the output-channel count M is known; the
// four statistics are float32 constants of M entries (true constants: graph.constant(), not a
// Constant node's output); the BatchNormalization has one wanted output, training_mode = 0 and,
// before opset 9, spatial = 1 (what the reference accepts). Not for models with half values
// (the adapter would round the Conv's result to 16 bits before the normalization).
#include <memory>

#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/ops/conv_activation.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op;
}

const Tensor* f32_vector(const PassGraph& graph, int id, std::int64_t n) {
  const Tensor* t = id >= 0 ? graph.constant(id) : nullptr;
  if (t == nullptr || t->dtype() != DType::F32 || t->rank() != 1 || t->shape()[0] != n) return nullptr;
  return t;
}

bool fuse_at(PassGraph& graph, std::size_t index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  CompiledNode& conv = nodes[index];
  if (!is_onnx(conv, "Conv") || conv.outputs.size() != 1 || conv.outputs[0] < 0 || conv.inputs.size() < 2) return false;
  if (conv.kernel == nullptr || conv_fused_norm(*conv.kernel) != nullptr) return false;
  const int y = conv.outputs[0];
  if (graph.is_output(y) || !graph.known_f32(conv.inputs[0])) return false;
  const int reader = graph.only_reader(y);
  if (reader < 0) return false;
  CompiledNode& bn = nodes[static_cast<std::size_t>(reader)];
  if (!is_onnx(bn, "BatchNormalization") || bn.ir->opset < 7 || bn.inputs.size() != 5 || bn.inputs[0] != y) return false;
  if (bn.outputs.empty() || bn.outputs[0] < 0) return false;
  for (std::size_t i = 1; i < bn.outputs.size(); ++i) {
    if (bn.outputs[i] >= 0) return false;
  }
  if (bn.info.get_int("training_mode", 0) != 0) return false;
  if (bn.ir->opset < 9 && bn.info.get_int("spatial", 1) != 1) return false;
  const Tensor* w = graph.constant(conv.inputs[1]);
  const bool compact = w != nullptr && graph.is_compact(conv.inputs[1]) &&
                       (w->dtype() == DType::F16 || w->dtype() == DType::BF16);
  if (w == nullptr || (w->dtype() != DType::F32 && !compact) || w->rank() < 3) return false;
  const std::int64_t m = w->shape()[0];
  const Tensor* scale = f32_vector(graph, bn.inputs[1], m);
  const Tensor* beta = f32_vector(graph, bn.inputs[2], m);
  const Tensor* mean = f32_vector(graph, bn.inputs[3], m);
  const Tensor* var = f32_vector(graph, bn.inputs[4], m);
  if (scale == nullptr || beta == nullptr || mean == nullptr || var == nullptr || m <= 0) return false;

  // The BatchNormalization override reads epsilon this way (op_batch_normalization.cpp).
  const float epsilon = bn.info.get_float("epsilon", 1e-5f);
  const Tensor sc = scale->contiguous(), be = beta->contiguous(), me = mean->contiguous(), va = var->contiguous();
  auto norm = std::make_shared<FusedNorm>();
  norm->scale.resize(static_cast<std::size_t>(m));
  norm->shift.resize(static_cast<std::size_t>(m));
  for (std::size_t c = 0; c < static_cast<std::size_t>(m); ++c) {
    batchnorm::channel_affine(sc.data<float>()[c], be.data<float>()[c], me.data<float>()[c], va.data<float>()[c], epsilon,
                              norm->scale[c], norm->shift[c]);
  }
  conv.kernel = make_optimized_conv_with_norm(conv.info, graph.config(), std::move(norm), nullptr);
  const std::vector<int> stats(bn.inputs.begin() + 1, bn.inputs.end());
  const int out = bn.outputs[0];
  graph.remove_node(static_cast<std::size_t>(reader));
  graph.set_outputs(index, {out});
  for (int id : stats) graph.release_if_unread(id);
  return true;
}

}  // namespace

void run_conv_batchnorm_epilogue(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fuse_at(graph, i);
  }
}

}  // namespace onemodel::opt
