// The attribute and bound rules of the activation overrides (optimized/ops/op_relu.cpp,
// op_clip.cpp, op_gelu.cpp, op_hard_sigmoid.cpp, op_leaky_relu.cpp, ...; spec/ops/elementwise.md
// sections 6 and 8), read once for a fusing pass.
#include "optimized/passes/activation_args.hpp"

#include <limits>

#include "optimized/passes/gelu_op.hpp"
#include "optimized/passes/self_gate_op.hpp"

namespace onemodel::opt {
namespace {

bool function_of(const PassGraph& graph, const CompiledNode& node, ew::UnaryArgs& args) {
  const IrNode& ir = *node.ir;
  // A Gelu the `gelu` pass made (it runs before linear-pack-fuse, graph-passes.md pass table):
  // its node is the replaced chain's last Mul, so it is recognised by its kernel.
  if (const auto* gelu = dynamic_cast<const GeluOp*>(node.kernel.get());
      gelu != nullptr && node.inputs.size() == 1 && node.inputs[0] >= 0 && node.outputs.size() == 1) {
    args = ew::UnaryArgs{gelu->form()};
    return true;
  }
  // A SelfGateOp the `self-gate` pass made (it runs before linear-pack-fuse and conv-activation):
  // x * Sigmoid(x) or x * HardSigmoid(x) in one kernel, also recognised by its kernel.
  if (const auto* gate = dynamic_cast<const SelfGateOp*>(node.kernel.get());
      gate != nullptr && node.inputs.size() == 1 && node.inputs[0] >= 0 && node.outputs.size() == 1) {
    args = gate->args();
    return true;
  }
  if (!ir.domain.empty() && ir.domain != "ai.onnx") return false;
  if (node.inputs.empty() || node.inputs[0] < 0 || node.outputs.size() != 1) return false;
  const std::string& op = ir.op_type;
  const NodeInfo& info = node.info;
  if (op == "Clip") {
    // An omitted bound is the finite extreme, not infinity (op_clip.cpp).
    float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
    if (ir.opset < 11) {
      if (info.has("min")) lo = info.get_float("min", 0.0f);
      if (info.has("max")) hi = info.get_float("max", 0.0f);
    } else {
      if (node.inputs.size() > 3) return false;
      for (std::size_t i = 1; i < node.inputs.size(); ++i) {
        if (node.inputs[i] < 0) continue;
        const Tensor* bound = graph.constant(node.inputs[i]);
        if (bound == nullptr || bound->dtype() != DType::F32 || bound->element_count() != 1) return false;
        const float value = bound->contiguous().data<float>()[0];
        (i == 1 ? lo : hi) = value;
      }
    }
    args = ew::UnaryArgs{ew::UnaryOp::Clip, lo, hi};
    return true;
  }
  if (node.inputs.size() != 1) return false;
  if (op == "Relu") {
    args = ew::UnaryArgs{ew::UnaryOp::Relu};
  } else if (op == "Sigmoid") {
    args = ew::UnaryArgs{ew::UnaryOp::Sigmoid};
  } else if (op == "Tanh") {
    args = ew::UnaryArgs{ew::UnaryOp::Tanh};
  } else if (op == "LeakyRelu") {
    args = ew::UnaryArgs{ew::UnaryOp::LeakyRelu, info.get_float("alpha", 0.01f)};
  } else if (op == "HardSigmoid") {
    args = ew::UnaryArgs{ew::UnaryOp::HardSigmoid, info.get_float("alpha", 0.2f), info.get_float("beta", 0.5f)};
  } else if (op == "HardSwish" && ir.opset >= 14) {
    args = ew::UnaryArgs{ew::UnaryOp::HardSwish};
  } else if (op == "Gelu" && ir.opset >= 20) {
    const std::string form = info.get_string("approximate", "none");
    if (form != "none" && form != "tanh") return false;  // the reference reports it
    args = ew::UnaryArgs{form == "tanh" ? ew::UnaryOp::GeluTanh : ew::UnaryOp::GeluErf};
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool activation_args(const PassGraph& graph, const CompiledNode& node, ew::UnaryArgs& args) {
  if (!function_of(graph, node, args)) return false;
  // Fast mode: the fast sigmoid for Sigmoid and SiLU, as the separate node computes it
  // (UnaryArgs::fast), so the epilogue keeps the unfused graph's bits in both modes.
  args = ew::for_mode(args, node.info.exact());
  return true;
}

}  // namespace onemodel::opt
