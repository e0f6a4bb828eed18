// `conv-batchnorm-fold` (graph-passes.md, does not preserve bits, so fast mode only): Conv ->
// BatchNormalization (inference form, constant statistics) becomes one Conv with
//   s = scale / sqrt(var + epsilon),  W' = W * s (per output channel),  b' = (b - mean) * s + beta,
// computed in double precision and rounded once to float32. The scale moves before the sum, so
// the last bits differ from the two operators. Only when the Conv's result is read by the
// BatchNormalization alone and is not a graph output, W (and b) and the four statistics are
// float32 constants, the statistics are vectors of the output-channel count, and the
// BatchNormalization has one output (training_mode outputs would need the unfolded statistics).
// The replaced weights are released when nothing else reads them (graph-passes.md "Memory").
#include <cmath>

#include "onemodel/half.hpp"
#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op;
}

const Tensor* f32_vector(const PassGraph& graph, int id, std::int64_t n) {
  const Tensor* t = id >= 0 ? graph.constant_value(id) : nullptr;
  if (t == nullptr || t->dtype() != DType::F32 || t->rank() != 1 || t->shape()[0] != n) return nullptr;
  return t;
}

// A compact weight's binary32 values (spec/half-precision.md sections 3 and 5, exact).
Tensor widened(const Tensor& w) {
  const Tensor dense = w.contiguous();
  Tensor out = Tensor::empty(DType::F32, w.shape());
  if (w.dtype() == DType::F16) {
    half_bits_to_floats(dense.data<std::uint16_t>(), out.mutable_data<float>());
  } else {
    bfloat16_bits_to_floats(dense.data<std::uint16_t>(), out.mutable_data<float>());
  }
  return out;
}

bool fold_at(PassGraph& graph, std::size_t index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  CompiledNode& conv = nodes[index];
  if (!is_onnx(conv, "Conv") || conv.outputs.size() != 1 || conv.outputs[0] < 0 || conv.inputs.size() < 2) return false;
  const int y = conv.outputs[0];
  if (graph.is_output(y)) return false;
  const int reader = graph.only_reader(y);
  if (reader < 0) return false;
  CompiledNode& bn = nodes[static_cast<std::size_t>(reader)];
  if (!is_onnx(bn, "BatchNormalization") || bn.ir->opset < 9 || bn.inputs.size() != 5 || bn.inputs[0] != y) return false;
  if (bn.outputs.empty() || bn.outputs[0] < 0) return false;
  for (std::size_t i = 1; i < bn.outputs.size(); ++i) {
    if (bn.outputs[i] >= 0) return false;
  }
  if (bn.info.get_int("training_mode", 0) != 0) return false;
  const Tensor* w = graph.constant_value(conv.inputs[1]);
  // A compact W (spec/session.md section 9) folds as the binary32 weights it stands for, so the
  // result is the fold of the model whose weights were rounded beforehand; W' is binary32.
  const bool compact = w != nullptr && graph.is_compact(conv.inputs[1]) &&
                       (w->dtype() == DType::F16 || w->dtype() == DType::BF16);
  if (w == nullptr || (w->dtype() != DType::F32 && !compact) || w->rank() < 3 || !graph.known_f32(conv.inputs[0])) {
    return false;
  }
  const std::int64_t m = w->shape()[0];
  const Tensor* b = conv.inputs.size() > 2 && conv.inputs[2] >= 0 ? f32_vector(graph, conv.inputs[2], m) : nullptr;
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0 && b == nullptr) return false;
  const Tensor* scale = f32_vector(graph, bn.inputs[1], m);
  const Tensor* beta = f32_vector(graph, bn.inputs[2], m);
  const Tensor* mean = f32_vector(graph, bn.inputs[3], m);
  const Tensor* var = f32_vector(graph, bn.inputs[4], m);
  if (scale == nullptr || beta == nullptr || mean == nullptr || var == nullptr || m == 0) return false;

  const double epsilon = bn.info.get_float("epsilon", 1e-5f);
  const Tensor wd = compact ? widened(*w) : w->contiguous();
  const auto sc = scale->contiguous(), be = beta->contiguous(), me = mean->contiguous(), va = var->contiguous();
  const std::size_t per_channel = static_cast<std::size_t>(w->element_count() / m);
  std::vector<float> w2(static_cast<std::size_t>(w->element_count()));
  std::vector<float> b2(static_cast<std::size_t>(m));
  const Tensor bd = b != nullptr ? b->contiguous() : Tensor();
  for (std::size_t c = 0; c < static_cast<std::size_t>(m); ++c) {
    const double s = static_cast<double>(sc.data<float>()[c]) /
                     std::sqrt(static_cast<double>(va.data<float>()[c]) + epsilon);
    for (std::size_t i = 0; i < per_channel; ++i) {
      const std::size_t at = c * per_channel + i;
      w2[at] = static_cast<float>(static_cast<double>(wd.data<float>()[at]) * s);
    }
    const double bias = b != nullptr ? static_cast<double>(bd.data<float>()[c]) : 0.0;
    b2[c] = static_cast<float>((bias - static_cast<double>(me.data<float>()[c])) * s + static_cast<double>(be.data<float>()[c]));
  }
  // add_value may grow the graph's value tables and move the constants `w` points into: take the
  // shape first (a use after free under AddressSanitizer otherwise).
  const Shape w_shape = w->shape();
  const int w_id = graph.add_value(graph.value_name(conv.inputs[1]) + "/bn-folded");
  graph.set_constant(w_id, Tensor::from_values<float>(DType::F32, w_shape, w2));
  const int b_id = graph.add_value(graph.value_name(bn.outputs[0]) + "/bn-folded-bias");
  graph.set_constant(b_id, Tensor::from_values<float>(DType::F32, Shape{m}, b2));
  const std::vector<int> old_inputs(conv.inputs.begin() + 1, conv.inputs.end());
  const std::vector<int> old_stats(bn.inputs.begin() + 1, bn.inputs.end());
  const int out = bn.outputs[0];
  std::vector<int> inputs = conv.inputs;
  inputs.resize(3);
  inputs[1] = w_id;
  inputs[2] = b_id;
  graph.set_inputs(index, std::move(inputs));
  graph.remove_node(static_cast<std::size_t>(reader));
  graph.set_outputs(index, {out});
  for (int id : old_inputs) graph.release_if_unread(id);
  for (int id : old_stats) graph.release_if_unread(id);
  return true;
}

}  // namespace

void run_conv_batchnorm_fold(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fold_at(graph, i);
  }
}

}  // namespace onemodel::opt
