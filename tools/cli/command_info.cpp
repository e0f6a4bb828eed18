// `onemodel info MODEL` (docs/command-line.md): what a user needs to call the model.
#include <map>
#include <ostream>
#include <set>
#include <string>

#include "core/io/file_bytes.hpp"
#include "onemodel/model_format.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/element_type_names.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

std::string type_text(const IrType& type) {
  auto inner = [&]() { return type.inner.empty() ? std::string("(no type)") : type_text(type.inner[0]); };
  auto shape = [&]() {
    if (!type.has_shape) return std::string("[unknown rank]");
    std::string text = "[";
    for (std::size_t k = 0; k < type.shape.size(); ++k) {
      if (k > 0) text += ", ";
      const IrDim& dim = type.shape[k];
      if (dim.kind == IrDim::Kind::Value) {
        text += std::to_string(dim.value);
      } else if (dim.kind == IrDim::Kind::Param) {
        text += dim.param;
      } else {
        text += "?";
      }
    }
    return text + "]";
  };
  switch (type.kind) {
    case IrType::Kind::None: return "(no type)";
    case IrType::Kind::Tensor: return element_type_name(type.elem_type) + " " + shape();
    case IrType::Kind::SparseTensor: return "sparse " + element_type_name(type.elem_type) + " " + shape();
    case IrType::Kind::Sequence: return "sequence of " + inner();
    case IrType::Kind::Optional: return "optional " + inner();
    case IrType::Kind::Map: return "map from " + element_type_name(type.elem_type) + " to " + inner();
    case IrType::Kind::Opaque: return "opaque " + type.opaque_domain + "." + type.opaque_name;
  }
  return "(no type)";
}

std::string domain_text(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

// Nodes per operator, subgraphs included: the operators a runtime must provide.
void count_operators(const IrGraph& graph, std::map<std::string, std::int64_t>& counts, std::int64_t& total) {
  for (const IrNode& node : graph.nodes) {
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    ++counts[default_domain ? node.op_type : node.domain + "." + node.op_type];
    ++total;
    for (const IrAttribute& attr : node.attributes) {
      for (const IrGraph& sub : attr.graphs) count_operators(sub, counts, total);
    }
  }
}

}  // namespace

int command_info(const Args& args, std::ostream& out) {
  for (const std::string& arg : args) {
    if (arg.size() > 1 && arg[0] == '-') throw UsageError("info: unknown option '" + arg + "'");
  }
  if (args.size() != 1) throw UsageError("info takes one model path");
  const std::string& path = args[0];
  const IrModel model = load_model_file(path);
  const std::string prefix = read_file_prefix(path, 8);
  const bool own_format = is_onemodel_bytes(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(prefix.data()), prefix.size()));

  out << "model: " << path << "\n";
  out << "format: " << (own_format ? "OneModel" : "ONNX") << "\n";
  out << "ir_version: " << model.ir_version << "\n";
  out << "producer:";
  if (!model.producer_name.empty()) out << " " << model.producer_name;
  if (!model.producer_version.empty()) out << " " << model.producer_version;
  out << "\n";
  out << "opsets:";
  for (const IrOpset& opset : model.opset_imports) out << " " << domain_text(opset.domain) << "=" << opset.version;
  out << "\n";

  // Inputs that an initializer also defines (how IR versions before 4 list weights) are weights,
  // not inputs a caller must give (spec/onnx-import.md section 4).
  std::set<std::string> initializer_names;
  for (const IrTensor& tensor : model.graph.initializers) initializer_names.insert(tensor.name);
  out << "inputs:\n";
  std::int64_t with_default = 0;
  for (const IrValueInfo& input : model.graph.inputs) {
    if (initializer_names.count(input.name) != 0) {
      ++with_default;
      continue;
    }
    out << "  " << input.name << ": " << type_text(input.type) << "\n";
  }
  if (with_default > 0) out << "  (and " << with_default << " inputs with an initializer as default)\n";
  out << "outputs:\n";
  for (const IrValueInfo& output : model.graph.outputs) {
    out << "  " << output.name << ": " << type_text(output.type) << "\n";
  }
  out << "initializers: " << model.graph.initializers.size() << "\n";

  std::map<std::string, std::int64_t> counts;
  std::int64_t total = 0;
  count_operators(model.graph, counts, total);
  out << "operators: " << total << " nodes\n";
  for (const auto& [op, count] : counts) out << "  " << op << ": " << count << "\n";
  if (!model.functions.empty()) out << "functions: " << model.functions.size() << "\n";
  return kExitOk;
}

}  // namespace onemodel::cli
