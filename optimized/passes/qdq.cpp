// `qdq` (graph-passes.md and int8.md "Graph rewrites"; fast mode only, does not preserve bits,
// runs first): the quantize-dequantize form of a convolution or product,
//
//   DequantizeLinear(x_q), DequantizeLinear(w_q) [, DequantizeLinear(b_q)] -> Conv | Gemm | MatMul
//     -> QuantizeLinear -> y_q
//
// becomes one QLinearConv or QLinearMatMul reading x_q, w_q and b_q and writing y_q, so the
// product runs on the integer kernel instead of dequantized float32 copies of the weights. The
// conditions are the page's: constant 8-bit weights, constant scales and zero points, a scalar
// activation scale and zero point (input and output), an optional int32 bias whose scale is
// sx * sw (the float32 product, per output channel) with zero point 0, and the product feeding
// only the QuantizeLinear. Anything else is left as written. MatMul (a 2-D constant weight, no
// bias) is rewritten too, to QLinearMatMul: the same product as Gemm's without the bias
// (docs/design.md, "qdq").
//
// Per-channel weights: the scale (and zero point) vary along the output channel: axis 0 of a
// Conv weight [M, C/g, k...], axis 1 of a [K, N] product weight, axis 0 of a Gemm weight stored
// transposed (transB = 1), which is transposed here into [K, N] (a copy of the int8 bytes).
// The rewritten node's result differs from the float simulation by rounding (QLinearConv rounds
// once, after the integer sum), which is why exact mode never runs this pass.
#include <cstddef>
#include <cstring>
#include <vector>
#include <optional>

#include "optimized/passes/graph_pass.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const IrNode& node, const char* op) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == op;
}

// A DequantizeLinear or QuantizeLinear node's operands.
struct QuantNode {
  int x = -1, scale = -1, zero = -1;
  std::int64_t axis = 1;
};

// Blocked quantization (opset 21 block_size) and output_dtype are outside the rewrite.
bool plain_quant_node(const CompiledNode& node, const char* op, QuantNode& q) {
  if (node.ir == nullptr || !is_onnx(*node.ir, op)) return false;
  if (node.inputs.size() < 2 || node.inputs[0] < 0 || node.inputs[1] < 0) return false;
  if (node.outputs.size() != 1 || node.outputs[0] < 0) return false;
  if (node.info.get_int("block_size", 0) != 0 || node.info.get_int("output_dtype", 0) != 0) return false;
  q.x = node.inputs[0];
  q.scale = node.inputs[1];
  q.zero = node.inputs.size() > 2 ? node.inputs[2] : -1;
  q.axis = node.info.opset() >= 13 ? node.info.get_int("axis", 1) : 1;
  return true;
}

// The DequantizeLinear writing `value`, when there is one.
std::optional<QuantNode> dequantize_of(const PassGraph& graph, int value) {
  const int producer = graph.producer(value);
  if (producer < 0) return std::nullopt;
  QuantNode q;
  if (!plain_quant_node(graph.nodes()[static_cast<std::size_t>(producer)], "DequantizeLinear", q)) return std::nullopt;
  return q;
}

bool is_8bit(DType type) { return type == DType::I8 || type == DType::U8; }

const Tensor* scalar_constant(const PassGraph& graph, int id, bool (*type_ok)(DType)) {
  const Tensor* t = graph.constant(id);
  if (t == nullptr || t->element_count() != 1 || t->rank() > 1 || !type_ok(t->dtype())) return nullptr;
  return t;
}
bool is_f32(DType type) { return type == DType::F32; }

float float_at(const Tensor& t, std::int64_t i) {
  const Tensor dense = t.contiguous();
  return dense.data<float>()[static_cast<std::size_t>(t.element_count() == 1 ? 0 : i)];
}

// A per-channel operand (scale or zero point) of `channels` output channels: one value, or a 1-D
// tensor of one value per channel.
bool per_channel_shape(const Tensor& t, std::int64_t channels) {
  return t.element_count() == 1 ? t.rank() <= 1 : (t.rank() == 1 && t.shape()[0] == channels);
}

// The weight's DequantizeLinear: constant 8-bit weight, constant float32 scale and zero point of
// the weight's type, per tensor or along `channel_axis` (of `channels` channels).
// (Values, not pointers: add_value() may move the graph's constants.)
struct Weight {
  int w = -1, scale = -1, zero = -1;  // zero -1: absent
  Shape shape;
  DType type = DType::I8;
};
std::optional<Weight> weight_of(const PassGraph& graph, int value, int rank, int channel_axis, bool channel_axis_last) {
  const std::optional<QuantNode> dq = dequantize_of(graph, value);
  if (!dq) return std::nullopt;
  const Tensor* w = graph.constant(dq->x);
  if (w == nullptr || !is_8bit(w->dtype()) || w->rank() != rank || graph.is_compact(dq->x)) return std::nullopt;
  const int axis_index = channel_axis_last ? rank - 1 : channel_axis;
  const std::int64_t channels = w->shape()[axis_index];
  const Tensor* scale = graph.constant(dq->scale);
  if (scale == nullptr || scale->dtype() != DType::F32 || !per_channel_shape(*scale, channels)) return std::nullopt;
  const Tensor* zero = dq->zero >= 0 ? graph.constant(dq->zero) : nullptr;
  if (dq->zero >= 0 && (zero == nullptr || zero->dtype() != w->dtype() || !per_channel_shape(*zero, channels))) {
    return std::nullopt;
  }
  if (scale->element_count() > 1 || (zero != nullptr && zero->element_count() > 1)) {
    // DequantizeLinear's axis (negative counts from the end) must name the channel axis.
    const std::int64_t axis = dq->axis < 0 ? dq->axis + rank : dq->axis;
    if (axis != axis_index) return std::nullopt;
  }
  return Weight{dq->x, dq->scale, dq->zero, w->shape(), w->dtype()};
}

// The bias's DequantizeLinear: a constant int32 vector of `channels` values whose scale is
// sx * sw per channel (bit for bit, the float32 product) and whose zero point is 0.
int bias_of(const PassGraph& graph, int value, std::int64_t channels, const Tensor& sx, const Tensor& sw) {
  const std::optional<QuantNode> dq = dequantize_of(graph, value);
  if (!dq) return -1;
  const Tensor* b = graph.constant(dq->x);
  if (b == nullptr || b->dtype() != DType::I32 || b->element_count() != channels) return -1;
  if (b->rank() != 1) return -1;
  const Tensor* sb = graph.constant(dq->scale);
  if (sb == nullptr || sb->dtype() != DType::F32 || !per_channel_shape(*sb, channels)) return -1;
  if (dq->zero >= 0) {
    const Tensor* zb = graph.constant(dq->zero);
    if (zb == nullptr || zb->dtype() != DType::I32) return -1;
    const Tensor dense = zb->contiguous();
    for (std::int32_t z : dense.data<std::int32_t>()) {
      if (z != 0) return -1;
    }
  }
  const float x_scale = float_at(sx, 0);
  for (std::int64_t c = 0; c < channels; ++c) {
    const float expected = x_scale * float_at(sw, c);
    const float actual = float_at(*sb, c);
    if (std::memcmp(&expected, &actual, sizeof expected) != 0) return -1;
  }
  return dq->x;
}

// The activation's DequantizeLinear: scalar constant float32 scale and 8-bit zero point.
std::optional<QuantNode> activation_of(const PassGraph& graph, int value) {
  std::optional<QuantNode> dq = dequantize_of(graph, value);
  if (!dq || dq->zero < 0) return std::nullopt;
  if (scalar_constant(graph, dq->scale, is_f32) == nullptr || scalar_constant(graph, dq->zero, is_8bit) == nullptr) {
    return std::nullopt;
  }
  return dq;
}

// The QuantizeLinear that alone reads the product's result: scalar constant float32 scale and an
// 8-bit zero point (absent: uint8 zero, as the operator defines it).
struct Output {
  std::size_t node = 0;
  int y = -1, scale = -1, zero = -1;  // zero -1: absent
};
std::optional<Output> output_of(const PassGraph& graph, int product) {
  if (graph.is_output(product)) return std::nullopt;
  const int reader = graph.only_reader(product);
  if (reader < 0) return std::nullopt;
  QuantNode q;
  const CompiledNode& node = graph.nodes()[static_cast<std::size_t>(reader)];
  if (!plain_quant_node(node, "QuantizeLinear", q) || q.x != product) return std::nullopt;
  if (scalar_constant(graph, q.scale, is_f32) == nullptr) return std::nullopt;
  if (q.zero >= 0 && scalar_constant(graph, q.zero, is_8bit) == nullptr) return std::nullopt;
  return Output{static_cast<std::size_t>(reader), node.outputs[0], q.scale, q.zero};
}

// B [n, k] of 8-bit values as [k, n] (Gemm's transB = 1).
Tensor transposed(const Tensor& w) {
  const std::int64_t n = w.shape()[0], k = w.shape()[1];
  std::vector<std::byte> in(static_cast<std::size_t>(n * k)), out(in.size());
  w.copy_to(in);
  for (std::int64_t r = 0; r < n; ++r) {
    for (std::int64_t c = 0; c < k; ++c) out[static_cast<std::size_t>(c * n + r)] = in[static_cast<std::size_t>(r * k + c)];
  }
  return Tensor::from_bytes(w.dtype(), Shape{k, n}, out);
}

// The zero point `id`, or (absent) a new constant 0 of `type`: DequantizeLinear's and
// QuantizeLinear's absent zero point is 0 (QuantizeLinear's of type uint8), and QLinearConv and
// QLinearMatMul take it as an input. Made only once the rewrite is certain.
int zero_point(PassGraph& graph, int id, DType type, const std::string& name) {
  if (id >= 0) return id;
  const int made = graph.add_value(name + "/qdq_zero");
  graph.set_constant(made, Tensor::zeros(type, Shape{}));
  return made;
}

// Replaces nodes[index] by `op_type` (QLinearConv or QLinearMatMul) over `inputs`, writing the
// QuantizeLinear's result; the QuantizeLinear goes. False (nothing changed) when the engine has no
// kernel for it at this opset.
bool replace(PassGraph& graph, std::size_t index, const char* op_type, const std::vector<int>& inputs,
             const Output& out) {
  CompiledNode& node = graph.nodes()[index];
  IrNode made;
  made.name = node.info.name() + "/qdq";
  made.op_type = op_type;
  made.opset = node.ir->opset;
  for (int id : inputs) made.inputs.push_back(id < 0 ? std::string() : graph.value_name(id));
  made.outputs.push_back(graph.value_name(out.y));
  // Conv's attributes are QLinearConv's (auto_pad, dilations, group, kernel_shape, pads, strides);
  // QLinearMatMul has none.
  if (std::strcmp(op_type, "QLinearConv") == 0) made.attributes = node.ir->attributes;
  const OptimizedOpDef* def = find_optimized_op("", op_type, made.opset);
  if (def == nullptr) return false;
  const IrNode& owned = graph.own_node(std::move(made));
  NodeInfo info(owned, owned.opset, graph.options().mode);
  std::unique_ptr<OpKernel> kernel = def->factory(info, graph.config());
  if (kernel == nullptr) return false;
  node.ir = &owned;
  node.info = info;
  node.kernel = std::move(kernel);
  graph.remove_node(out.node);
  graph.set_inputs(index, inputs);
  graph.set_outputs(index, {out.y});
  return true;
}

bool rewrite_conv(PassGraph& graph, std::size_t index) {
  const CompiledNode& conv = graph.nodes()[index];
  if (conv.inputs.size() < 2 || conv.outputs.size() != 1 || conv.outputs[0] < 0) return false;
  const std::optional<QuantNode> x = activation_of(graph, conv.inputs[0]);
  if (!x) return false;
  int rank = 0;
  if (const std::optional<QuantNode> dq = dequantize_of(graph, conv.inputs[1])) {
    if (const Tensor* probe = graph.constant(dq->x)) rank = probe->rank();
  }
  // int8.md: 3-D convolution is not supported by the integer kernels; 1-D and 2-D only.
  if (rank < 3 || rank > 4) return false;
  const std::optional<Output> out = output_of(graph, conv.outputs[0]);
  if (!out) return false;
  const std::optional<Weight> w = weight_of(graph, conv.inputs[1], rank, 0, false);
  if (!w) return false;
  const std::int64_t channels = w->shape[0];
  int bias = -1;
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    bias = bias_of(graph, conv.inputs[2], channels, *graph.constant(x->scale), *graph.constant(w->scale));
    if (bias < 0) return false;
  }
  const std::string name = graph.value_name(conv.outputs[0]);
  std::vector<int> inputs{x->x, x->scale, x->zero, w->w, w->scale, zero_point(graph, w->zero, w->type, name + "/w"),
                          out->scale, zero_point(graph, out->zero, DType::U8, name + "/y")};
  if (bias >= 0) inputs.push_back(bias);
  return replace(graph, index, "QLinearConv", inputs, *out);
}

bool rewrite_product(PassGraph& graph, std::size_t index, bool gemm) {
  const CompiledNode& product = graph.nodes()[index];
  if (product.inputs.size() < 2 || product.outputs.size() != 1 || product.outputs[0] < 0) return false;
  bool trans_b = false;
  if (gemm) {
    if (product.info.get_int("transA", 0) != 0 || product.info.get_float("alpha", 1.0f) != 1.0f) return false;
    trans_b = product.info.get_int("transB", 0) != 0;
  }
  const std::optional<QuantNode> x = activation_of(graph, product.inputs[0]);
  if (!x) return false;
  const std::optional<Output> out = output_of(graph, product.outputs[0]);
  if (!out) return false;
  // The weight [K, N] (per column: axis 1), or [N, K] under transB (per row: axis 0).
  const std::optional<Weight> w = weight_of(graph, product.inputs[1], 2, trans_b ? 0 : 1, false);
  if (!w) return false;
  const std::int64_t columns = trans_b ? w->shape[0] : w->shape[1];
  int bias = -1;
  const bool has_c = gemm && product.inputs.size() > 2 && product.inputs[2] >= 0;
  if (has_c) {
    if (product.info.get_float("beta", 1.0f) != 1.0f) return false;
    bias = bias_of(graph, product.inputs[2], columns, *graph.constant(x->scale), *graph.constant(w->scale));
    if (bias < 0) return false;
  }
  int b = w->w;
  if (trans_b) {
    Tensor t = transposed(*graph.constant(w->w));
    b = graph.add_value(graph.value_name(w->w) + "/qdq_transposed");
    graph.set_constant(b, std::move(t));
  }
  const std::string name = graph.value_name(product.outputs[0]);
  std::vector<int> inputs{x->x, x->scale, x->zero, b, w->scale, zero_point(graph, w->zero, w->type, name + "/w"),
                          out->scale, zero_point(graph, out->zero, DType::U8, name + "/y")};
  // int8.md: QLinearMatMul's ninth input, the int32 bias per column (an extension, not ONNX).
  if (bias >= 0) inputs.push_back(bias);
  return replace(graph, index, "QLinearMatMul", inputs, *out);
}

}  // namespace

void run_qdq(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    const CompiledNode& node = graph.nodes()[i];
    if (node.ir == nullptr || node.kernel == nullptr) continue;
    if (is_onnx(*node.ir, "Conv")) {
      rewrite_conv(graph, i);
    } else if (is_onnx(*node.ir, "Gemm")) {
      rewrite_product(graph, i, true);
    } else if (is_onnx(*node.ir, "MatMul")) {
      rewrite_product(graph, i, false);
    }
  }
}

}  // namespace onemodel::opt
