// PassGraph queries and edits (see pass_graph.hpp, graph-runtime.md section 6).
#include "optimized/passes/pass_graph.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace onemodel::opt {
namespace {

// Operators whose output 0 has the element type of input 0 (spec/ops: the T of each signature).
bool keeps_first_input_type(const IrNode& node) {
  // LayerNormalization onwards: added so that the products of an exported transformer (whose A is
  // a LayerNormalization, a transpose or a gather, and whose file declares no intermediate types)
  // qualify; each has output T = input 0's T in its schema.
  // The pools onwards: a convolutional network's maps pass through them (ResNet-50's stem MaxPool,
  // the GlobalAveragePool of every squeeze-excitation block in MobileNetV3 and EfficientNet, whose
  // Mul(scale, x) then takes the pool branch's type); without them nothing after the first pool
  // was known to be float32 and no Conv there took its activation. Output 0 is input 0's T in
  // each schema (MaxPool's optional Indices is output 1, which the walk never reads).
  // Pad onwards: the data movement and the rest of the T -> T operators the zoo's networks put
  // between their layers (segmentation heads upsample with Resize, detectors pad and slice,
  // ConvNeXt and the vision transformers reduce and normalize); checked against each schema's
  // type constraints (onnx.defs: input 0 and output 0 share T or T1 in every opset listed).
  static constexpr std::array<std::string_view, 66> kOps = {
      "MatMul",    "Gemm",          "Add",       "Sub",      "Mul",       "Div",     "Relu",     "Sigmoid",
      "Tanh",      "Gelu",          "HardSigmoid", "HardSwish", "Clip",    "LeakyRelu", "Identity", "Reshape",
      "Flatten",   "Conv",          "LayerNormalization", "Softmax", "Transpose", "Erf", "Sqrt", "Exp",
      "Neg",       "BatchNormalization", "Gather", "Squeeze", "Unsqueeze", "Concat",
      "MaxPool",   "AveragePool",   "GlobalAveragePool", "GlobalMaxPool",
      "Pad",       "Slice",         "Resize",    "Upsample", "Split",     "Expand",  "Tile",     "Abs",
      "Max",       "Min",           "Sum",       "Mean",     "Pow",       "Softplus", "Elu",     "Selu",
      "PRelu",     "Reciprocal",    "Log",       "Floor",    "Ceil",      "Round",   "ReduceMean", "ReduceSum",
      "ReduceMax", "ReduceMin",     "InstanceNormalization", "GroupNormalization", "Dropout", "DepthToSpace",
      "SpaceToDepth", "ConvTranspose"};
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  return std::find(kOps.begin(), kOps.end(), node.op_type) != kOps.end();
}

}  // namespace

void PassGraph::grow_indexes(std::size_t values) {
  reads_.resize(values, 0);
  reader_sum_.resize(values, 0);
  producer_.resize(values, -1);
  is_output_.resize(values, false);
  is_input_.resize(values, false);
  known_type_.resize(values, -1);
}

void PassGraph::index_all() {
  const std::size_t values = graph_.value_names.size();
  reads_.assign(values, 0);
  reader_sum_.assign(values, 0);
  producer_.assign(values, -1);
  is_output_.assign(values, false);
  is_input_.assign(values, false);
  known_type_.assign(values, -1);
  for (int id : graph_.output_ids) is_output_[static_cast<std::size_t>(id)] = true;
  for (int id : graph_.input_ids) is_input_[static_cast<std::size_t>(id)] = true;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    count_reads(i, 1);
    for (int id : graph_.nodes[i].outputs) {
      // The first node writing a value is its producer (the importer allows one).
      if (id >= 0 && producer_[static_cast<std::size_t>(id)] < 0) producer_[static_cast<std::size_t>(id)] = static_cast<int>(i);
    }
  }
  add_work(values + graph_.nodes.size());
}

void PassGraph::count_reads(std::size_t index, int sign) {
  for (int id : graph_.nodes[index].inputs) {
    if (id < 0) continue;
    reads_[static_cast<std::size_t>(id)] += sign;
    reader_sum_[static_cast<std::size_t>(id)] += sign * static_cast<std::int64_t>(index);
  }
  add_work(graph_.nodes[index].inputs.size() + 1);
}

void PassGraph::set_inputs(std::size_t index, std::vector<int> inputs) {
  count_reads(index, -1);
  graph_.nodes[index].inputs = std::move(inputs);
  count_reads(index, 1);
}

void PassGraph::set_outputs(std::size_t index, std::vector<int> outputs) {
  for (int id : graph_.nodes[index].outputs) {
    if (id >= 0 && producer_[static_cast<std::size_t>(id)] == static_cast<int>(index)) producer_[static_cast<std::size_t>(id)] = -1;
  }
  graph_.nodes[index].outputs = std::move(outputs);
  for (int id : graph_.nodes[index].outputs) {
    if (id >= 0) producer_[static_cast<std::size_t>(id)] = static_cast<int>(index);
  }
  add_work(graph_.nodes[index].outputs.size() + 1);
}

void PassGraph::remove_node(std::size_t index) {
  set_inputs(index, {});
  set_outputs(index, {});
}

int PassGraph::readers(int id) const {
  if (id < 0) return 0;
  return reads_[static_cast<std::size_t>(id)];
}

bool PassGraph::is_output(int id) const { return id >= 0 && is_output_[static_cast<std::size_t>(id)]; }

const Tensor* PassGraph::constant(int id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= graph_.initializers.size()) return nullptr;
  const Tensor& t = graph_.initializers[static_cast<std::size_t>(id)];
  if (!t.defined()) return nullptr;
  // An initializer that is also a graph input is only a default: the caller may replace it.
  if (is_input_[static_cast<std::size_t>(id)]) return nullptr;
  return &t;
}

// Iterative (a chain of 10^5 nodes must not recurse 10^5 deep): walks from `id` through the value
// each answer depends on (the first input of an operator keeping its first input's type, or
// Where's input 1) until a value whose own facts, or the memo, decide it. The memo holds the
// ONNX element type code (DType's values are those codes), 0 for "not known".
std::optional<DType> PassGraph::known_type(int id) const {
  std::vector<int> chain;
  std::int8_t answer = 0;
  auto float_code = [&](std::int64_t code) -> std::int8_t {
    // Only the float types the passes act on are remembered; any other is "not known".
    const bool wanted = code == static_cast<std::int64_t>(DType::F32) || code == static_cast<std::int64_t>(DType::F16) ||
                        code == static_cast<std::int64_t>(DType::BF16);
    return wanted ? static_cast<std::int8_t>(code) : std::int8_t{0};
  };
  for (int at = id; at >= 0;) {
    add_work(1);
    const std::size_t index = static_cast<std::size_t>(at);
    if (known_type_[index] >= 0) {
      answer = known_type_[index];
      break;
    }
    chain.push_back(at);
    // A graph is acyclic, so a walk longer than the value count cannot happen; stop anyway.
    if (chain.size() > known_type_.size()) break;
    if (const Tensor* t = constant(at)) {
      // A compact weight stands for binary32 values but is 16 bits wide (spec/session.md section
      // 9): neither answer fits, and only the product reading it (input 1) ever sees one.
      answer = is_compact(at) ? std::int8_t{0} : float_code(static_cast<std::int32_t>(t->dtype()));
      break;
    }
    if (index < ir_.values.size() && ir_.values[index].type.kind == IrType::Kind::Tensor &&
        ir_.values[index].type.elem_type != 0) {
      answer = float_code(ir_.values[index].type.elem_type);
      break;
    }
    const int p = producer_[index];
    if (p < 0) break;
    const CompiledNode& node = graph_.nodes[static_cast<std::size_t>(p)];
    if (node.outputs.empty() || node.outputs[0] != at) break;
    const IrNode& ir = *node.ir;
    const bool onnx = ir.domain.empty() || ir.domain == "ai.onnx";
    // A Constant node's value, and Where, whose result has the type of its inputs 1 and 2 (an
    // exported attention mask is Where(cond, 0, -FLT_MAX) of Constant nodes).
    if (onnx && ir.op_type == "Constant") {
      const Tensor* value = constant_value(at);
      answer = value != nullptr ? float_code(static_cast<std::int32_t>(value->dtype())) : std::int8_t{0};
      break;
    }
    // Cast states its result's type (a float16 file converts its float32 inputs with one).
    if (onnx && ir.op_type == "Cast") {
      answer = float_code(node.info.get_int("to", 0));
      break;
    }
    if (onnx && ir.op_type == "Where") {
      if (node.inputs.size() != 3 || node.inputs[1] == at) break;
      at = node.inputs[1];
      continue;
    }
    if (!keeps_first_input_type(ir) || node.inputs.empty() || node.inputs[0] == at) break;
    at = node.inputs[0];
  }
  // Every value on the walk has the answer of the value that ended it.
  for (int walked : chain) known_type_[static_cast<std::size_t>(walked)] = answer;
  if (answer <= 0) return std::nullopt;
  return static_cast<DType>(static_cast<std::int32_t>(answer));
}

bool PassGraph::known_f32(int id) const { return known_type(id) == DType::F32; }

int PassGraph::only_reader(int id) const {
  if (id < 0 || reads_[static_cast<std::size_t>(id)] != 1) return -1;
  return static_cast<int>(reader_sum_[static_cast<std::size_t>(id)]);
}

int PassGraph::producer(int id) const {
  if (id < 0) return -1;
  return producer_[static_cast<std::size_t>(id)];
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
  if (is_input_[static_cast<std::size_t>(id)]) return;
  graph_.initializers[static_cast<std::size_t>(id)] = Tensor();
}

int PassGraph::add_value(const std::string& name) {
  graph_.value_names.push_back(name);
  graph_.initializers.emplace_back();
  if (graph_.compact.size() + 1 == graph_.initializers.size()) graph_.compact.push_back(0);
  grow_indexes(graph_.value_names.size());
  return static_cast<int>(graph_.value_names.size() - 1);
}

void PassGraph::set_constant(int id, Tensor value) {
  graph_.initializers[static_cast<std::size_t>(id)] = std::move(value);
  if (static_cast<std::size_t>(id) < graph_.compact.size()) graph_.compact[static_cast<std::size_t>(id)] = 0;
}

bool PassGraph::is_compact(int id) const { return graph_.is_compact(id); }

void PassGraph::remove_unread() {
  // One backward walk: a node's readers all come after it, so discounting the inputs of each
  // dropped node finds every node that becomes unread. Then one compaction (no erase per node).
  std::vector<int> reads = reads_;
  for (int id : graph_.output_ids) ++reads[static_cast<std::size_t>(id)];
  std::vector<bool> keep(graph_.nodes.size(), false);
  for (std::size_t i = graph_.nodes.size(); i-- > 0;) {
    bool used = false;
    for (int id : graph_.nodes[i].outputs) used = used || (id >= 0 && reads[static_cast<std::size_t>(id)] > 0);
    keep[i] = used;
    if (used) continue;
    for (int id : graph_.nodes[i].inputs) {
      if (id >= 0) --reads[static_cast<std::size_t>(id)];
    }
  }
  std::vector<CompiledNode> kept;
  kept.reserve(graph_.nodes.size());
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(graph_.nodes[i]));
  }
  graph_.nodes = std::move(kept);
  index_all();
}

}  // namespace onemodel::opt
