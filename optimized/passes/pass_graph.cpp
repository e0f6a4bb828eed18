// PassGraph queries and edits (see pass_graph.hpp, graph-runtime.md section 6).
#include "optimized/passes/pass_graph.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace onemodel::opt {
namespace {

constexpr std::int32_t kOnnxFloat = 1;

// Operators whose output 0 has the element type of input 0 (spec/ops: the T of each signature).
bool keeps_first_input_type(const IrNode& node) {
  // LayerNormalization onwards: added so that the products of an exported transformer (whose A is
  // a LayerNormalization, a transpose or a gather, and whose file declares no intermediate types)
  // qualify; each has output T = input 0's T in its schema.
  static constexpr std::array<std::string_view, 30> kOps = {
      "MatMul",    "Gemm",          "Add",       "Sub",      "Mul",       "Div",     "Relu",     "Sigmoid",
      "Tanh",      "Gelu",          "HardSigmoid", "HardSwish", "Clip",    "LeakyRelu", "Identity", "Reshape",
      "Flatten",   "Conv",          "LayerNormalization", "Softmax", "Transpose", "Erf", "Sqrt", "Exp",
      "Neg",       "BatchNormalization", "Gather", "Squeeze", "Unsqueeze", "Concat"};
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  return std::find(kOps.begin(), kOps.end(), node.op_type) != kOps.end();
}

}  // namespace

int PassGraph::readers(int id) const {
  int count = 0;
  for (const CompiledNode& node : graph_.nodes) count += static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), id));
  return count;
}

bool PassGraph::is_output(int id) const {
  return std::find(graph_.output_ids.begin(), graph_.output_ids.end(), id) != graph_.output_ids.end();
}

const Tensor* PassGraph::constant(int id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= graph_.initializers.size()) return nullptr;
  const Tensor& t = graph_.initializers[static_cast<std::size_t>(id)];
  if (!t.defined()) return nullptr;
  // An initializer that is also a graph input is only a default: the caller may replace it.
  if (std::find(graph_.input_ids.begin(), graph_.input_ids.end(), id) != graph_.input_ids.end()) return nullptr;
  return &t;
}

bool PassGraph::known_f32(int id) const {
  if (id < 0) return false;
  if (const Tensor* t = constant(id)) return t->dtype() == DType::F32;
  const std::size_t index = static_cast<std::size_t>(id);
  if (index < ir_.values.size() && ir_.values[index].type.kind == IrType::Kind::Tensor &&
      ir_.values[index].type.elem_type != 0) {
    return ir_.values[index].type.elem_type == kOnnxFloat;
  }
  for (const CompiledNode& node : graph_.nodes) {
    if (node.outputs.empty() || node.outputs[0] != id) continue;
    const IrNode& ir = *node.ir;
    const bool onnx = ir.domain.empty() || ir.domain == "ai.onnx";
    // A Constant node's value, and Where, whose result has the type of its inputs 1 and 2 (an
    // exported attention mask is Where(cond, 0, -FLT_MAX) of Constant nodes).
    if (onnx && ir.op_type == "Constant") {
      const Tensor* value = constant_value(id);
      return value != nullptr && value->dtype() == DType::F32;
    }
    if (onnx && ir.op_type == "Where") return node.inputs.size() == 3 && node.inputs[1] != id && known_f32(node.inputs[1]);
    return keeps_first_input_type(ir) && !node.inputs.empty() && node.inputs[0] != id && known_f32(node.inputs[0]);
  }
  return false;
}

int PassGraph::only_reader(int id) const {
  int found = -1;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const auto& inputs = graph_.nodes[i].inputs;
    const auto n = std::count(inputs.begin(), inputs.end(), id);
    if (n == 0) continue;
    if (n > 1 || found >= 0) return -1;
    found = static_cast<int>(i);
  }
  return found;
}

int PassGraph::producer(int id) const {
  if (id < 0) return -1;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const auto& outputs = graph_.nodes[i].outputs;
    if (std::find(outputs.begin(), outputs.end(), id) != outputs.end()) return static_cast<int>(i);
  }
  return -1;
}

const Tensor* PassGraph::constant_value(int id) const {
  if (const Tensor* t = constant(id)) return t;
  if (auto it = constant_nodes_.find(id); it != constant_nodes_.end()) return &it->second;
  const int index = producer(id);
  if (index < 0) return nullptr;
  const CompiledNode& node = graph_.nodes[static_cast<std::size_t>(index)];
  const IrNode& ir = *node.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "Constant" || !node.inputs.empty() ||
      node.outputs.size() != 1 || node.kernel == nullptr) {
    return nullptr;
  }
  // The Constant kernel states its value as a constant output (spec/optimized-engine.md section 3
  // step 3); asking it keeps the attribute rules (value, value_float, ...) in one place.
  std::vector<InferOutput> stated(1);
  stated[0].wanted = true;
  InferContext context(node.info, std::span<const InferInput>(), stated);
  node.kernel->infer(context);
  if (!stated[0].constant || !stated[0].value.defined()) return nullptr;
  return &constant_nodes_.emplace(id, stated[0].value).first->second;
}

void PassGraph::release_if_unread(int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= graph_.initializers.size()) return;
  if (!graph_.initializers[static_cast<std::size_t>(id)].defined() || readers(id) > 0 || is_output(id)) return;
  if (std::find(graph_.input_ids.begin(), graph_.input_ids.end(), id) != graph_.input_ids.end()) return;
  graph_.initializers[static_cast<std::size_t>(id)] = Tensor();
}

int PassGraph::add_value(const std::string& name) {
  graph_.value_names.push_back(name);
  graph_.initializers.emplace_back();
  return static_cast<int>(graph_.value_names.size() - 1);
}

void PassGraph::set_constant(int id, Tensor value) { graph_.initializers[static_cast<std::size_t>(id)] = std::move(value); }

void PassGraph::remove_unread() {
  // One backward walk: a node's readers all come after it, so counting once and discounting the
  // inputs of each dropped node finds every node that becomes unread.
  std::vector<int> reads(graph_.value_names.size(), 0);
  for (const CompiledNode& node : graph_.nodes) {
    for (int id : node.inputs) {
      if (id >= 0) ++reads[static_cast<std::size_t>(id)];
    }
  }
  for (int id : graph_.output_ids) ++reads[static_cast<std::size_t>(id)];
  for (std::size_t i = graph_.nodes.size(); i-- > 0;) {
    bool used = false;
    for (int id : graph_.nodes[i].outputs) used = used || (id >= 0 && reads[static_cast<std::size_t>(id)] > 0);
    if (used) continue;
    for (int id : graph_.nodes[i].inputs) {
      if (id >= 0) --reads[static_cast<std::size_t>(id)];
    }
    graph_.nodes.erase(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace onemodel::opt
