// `constant-fold` (graph-passes.md, level Basic, bit-preserving): every node whose inputs are all
// constants is evaluated once, when the session is made, through its own kernel in the session's
// mode, and its outputs become constants the later passes see (a weight's DequantizeLinear becomes
// a float32 weight that linear-pack-fuse can pack; a folded batch-norm's arithmetic becomes a plain
// bias). The same kernel on the same values makes the same bits, only earlier, so the pass
// preserves bits in both modes (the plan folds such nodes per plan anyway: graph-runtime.md
// section 3 step 2; this makes them constants for the passes too).
//
// Skipped, as the page says: data-dependent shapes (a kernel with outputs_data_dependent, or one
// whose infer() asks for run-time values), nodes feeding a graph output, and results larger than
// both the inputs and 64 KiB (except DequantizeLinear, which int8.md folds whatever its size, and
// a Constant node, whose value is its attribute).
// Also skipped: nodes holding subgraphs (their bodies are engines of their own), nodes with no
// inputs other than Constant and random operators (kernel.draws_random: they draw per run), nodes reading a compact
// weight (its binary32 form is the adapter's, per run: graph-passes.md "Half-precision weights"),
// and any node whose shaping or run throws: the plan then raises the error, named as it always
// is, when the session makes its first plan. Every result is a fresh tensor the kernel wrote,
// except a view of a constant (Identity, Reshape, Squeeze, Unsqueeze, Flatten: view_of_input),
// which becomes a view over the same buffer (issue 15, memory): its elements are the input's in
// the same order, which is what the kernel would copy, and constants are never written after they
// are made. So the readers of a weight through Identity (ALBERT's twelve layers) see one buffer,
// and the packs made from it are shared (weight_packs.hpp).
#include <algorithm>
#include <exception>
#include <optional>

#include "core/graph/constants_pool.hpp"
#include "optimized/passes/graph_pass.hpp"
#include "optimized/runtime/plan.hpp"

namespace onemodel::opt {
namespace {

// The plan's own limit (graph-runtime.md section 3 step 2), which is graph-passes.md's 64 KiB: the
// pass and the plan fold by one rule.
constexpr std::int64_t kFoldLimitBytes = Plan::kFoldLimitBytes;

std::int64_t byte_size(DType type, const Shape& shape) {
  return shape.element_count() * static_cast<std::int64_t>(dtype_size(type));
}

bool holds_subgraphs(const IrNode& node) {
  return std::any_of(node.attributes.begin(), node.attributes.end(), [](const IrAttribute& a) {
    return a.type == AttrType::Graph || a.type == AttrType::Graphs;
  });
}

bool is_constant_node(const IrNode& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == "Constant";
}

bool is_dequantize(const IrNode& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == "DequantizeLinear";
}

// The node's inputs as constants, or false when one is not a plain constant.
bool constant_inputs(const PassGraph& graph, const CompiledNode& node, std::vector<InferInput>& described,
                     std::vector<Tensor>& values) {
  described.assign(node.inputs.size(), InferInput{});
  values.assign(node.inputs.size(), Tensor());
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const int id = node.inputs[i];
    if (id < 0) continue;
    const Tensor* value = graph.constant(id);
    if (value == nullptr || graph.is_compact(id)) return false;
    values[i] = *value;
    described[i] = InferInput{true, value->dtype(), value->shape(), nullptr};
  }
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] >= 0) described[i].value = &values[i];
  }
  return true;
}

// The node's outputs, evaluated; false (and nothing changed) when the node is not folded.
bool evaluate(const PassGraph& graph, const CompiledNode& node, std::vector<Tensor>& results) {
  const OpKernel& kernel = *node.kernel;
  if (kernel.outputs_data_dependent || kernel.draws_random || holds_subgraphs(*node.ir)) return false;
  if (node.inputs.empty() && !is_constant_node(*node.ir)) return false;
  if (node.outputs.empty()) return false;
  for (int id : node.outputs) {
    if (id >= 0 && graph.is_output(id)) return false;
  }
  std::vector<InferInput> described;
  std::vector<Tensor> inputs;
  if (!constant_inputs(graph, node, described, inputs)) return false;
  std::vector<InferOutput> stated(node.outputs.size());
  for (std::size_t i = 0; i < node.outputs.size(); ++i) stated[i].wanted = node.outputs[i] >= 0;
  try {
    InferContext infer(node.info, described, stated);
    infer_node(kernel, infer);
    if (infer.needs_runtime_values()) return false;
    std::int64_t largest_input = 0;
    for (const InferInput& in : described) {
      if (in.present) largest_input = std::max(largest_input, byte_size(in.type, in.shape));
    }
    bool all_constant = true;
    for (const InferOutput& out : stated) {
      if (!out.wanted) continue;
      if (!out.set) return false;
      const DType type = out.constant ? out.value.dtype() : out.type;
      const Shape& shape = out.constant ? out.value.shape() : out.shape;
      const std::int64_t bytes = byte_size(type, shape);
      // int8.md, DequantizeLinear: "a node with constant inputs is folded at plan time", whatever
      // its size: a quantized weight read as float32 on every run would cost a pass over it per
      // call (a QDQ model's exact mode runs its graph as written, graph-passes.md).
      // A Constant node's result is its own attribute, already held by the model, so the limit
      // (results larger than what they are made from) does not apply: exporters that write
      // weights as Constant nodes (PaddlePaddle's) kept every weight over 64 KiB from the passes,
      // so its products were neither packed once nor fused (PP-OCR recogniser: 7 of 9).
      if (bytes > kFoldLimitBytes && bytes > largest_input && !is_dequantize(*node.ir) && !is_constant_node(*node.ir)) {
        return false;
      }
      all_constant = all_constant && out.constant;
    }
    results.assign(node.outputs.size(), Tensor());
    if (all_constant) {
      for (std::size_t i = 0; i < stated.size(); ++i) {
        if (stated[i].wanted) results[i] = stated[i].value.contiguous();
      }
      return true;
    }
    if (kernel.view_of_input && !inputs.empty() && inputs[0].defined() && inputs[0].is_contiguous() &&
        stated.size() == 1 && stated[0].wanted && stated[0].type == inputs[0].dtype() &&
        stated[0].shape.element_count() == inputs[0].element_count()) {
      if (std::optional<Tensor> view = inputs[0].try_reshape(stated[0].shape)) {
        results.assign(1, std::move(*view));
        return true;
      }
    }
    const std::shared_ptr<const void> prepared = kernel.prepare(infer);
    for (std::size_t i = 0; i < stated.size(); ++i) {
      if (stated[i].wanted) results[i] = Tensor::empty(stated[i].type, stated[i].shape, constants_pool());
    }
    RunContext run(node.info, inputs, results, nullptr, prepared.get());
    kernel.run(run);
  } catch (const std::exception&) {
    return false;  // the plan reports it, with the node's name, when the session plans
  }
  return true;
}

}  // namespace

void run_constant_fold(PassGraph& graph) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    graph.add_work(1);
    CompiledNode& node = nodes[index];
    if (node.kernel == nullptr || node.outputs.empty()) continue;
    std::vector<Tensor> results;
    if (!evaluate(graph, node, results)) continue;
    const std::vector<int> inputs = node.inputs;
    const std::vector<int> outputs = node.outputs;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i] >= 0) graph.set_constant(outputs[i], std::move(results[i]));
    }
    graph.remove_node(index);
    // graph-passes.md "Memory": an input nothing reads any more is released.
    for (int id : inputs) graph.release_if_unread(id);
  }
}

}  // namespace onemodel::opt
