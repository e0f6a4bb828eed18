#include "optimized/runtime/node_profile.hpp"

#include <cctype>
#include <string_view>

#include "core/graph/half_adapter.hpp"
#include "optimized/ops/batch_norm_activation.hpp"
#include "optimized/ops/conv_activation.hpp"

namespace onemodel::opt {

std::string class_name(const std::type_info& type) {
  const std::string_view mangled = type.name();
  // Itanium ABI: N <length><identifier>... E for a name inside namespaces or classes.
  if (mangled.size() > 2 && mangled.front() == 'N' && mangled.back() == 'E') {
    std::string_view last;
    std::size_t k = 1;
    while (k < mangled.size() - 1) {
      std::size_t length = 0;
      std::size_t digits = 0;
      while (k + digits < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[k + digits])) != 0 &&
             digits < 6) {
        length = length * 10 + static_cast<std::size_t>(mangled[k + digits] - '0');
        ++digits;
      }
      if (digits == 0 || length == 0 || k + digits + length > mangled.size() - 1) break;
      last = mangled.substr(k + digits, length);
      k += digits + length;
    }
    if (k == mangled.size() - 1 && !last.empty()) return std::string(last);
  }
  const std::size_t colons = mangled.rfind("::");
  if (colons != std::string_view::npos) return std::string(mangled.substr(colons + 2));
  return std::string(mangled);
}

ProfiledNode describe_node(const CompiledNode& node, Isa isa) {
  ProfiledNode described;
  described.name = node.ir->name;
  described.model_op_type = node.ir->op_type;
  const OpKernel& kernel = unwrap_half_adapter(*node.kernel);
  const bool optimized = dynamic_cast<const OptimizedKernel*>(&kernel) != nullptr;
  if (node.made_by_pass()) {
    described.kind = NodeKernelKind::Fused;
    if (!optimized) {
      // A kernel class of the passes (optimized/passes): LinearOp, GeluOp, ...
      described.op_type = class_name(typeid(kernel));
    } else if (node.ir->op_type == "Conv") {
      // conv-activation and conv-batchnorm-epilogue: the Conv override rebuilt with the following
      // BatchNormalization and/or activation inside.
      described.op_type = conv_fused_label(kernel);
    } else if (node.ir->op_type == "BatchNormalization") {
      // batchnorm-activation: the BatchNormalization override with the activation inside.
      described.op_type = batch_norm_fused_label(kernel);
    } else {
      // A node a pass made with its own IR (qdq's QLinearConv): an override of that operator.
      described.op_type = node.ir->op_type;
    }
  } else {
    described.kind = optimized ? NodeKernelKind::Optimized : NodeKernelKind::Reference;
    described.op_type = node.ir->op_type;
  }
  described.kernel_path = described.kind == NodeKernelKind::Reference ? "reference" : std::string(isa_path_name(isa));
  return described;
}

}  // namespace onemodel::opt
