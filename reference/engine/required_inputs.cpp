// The required-input check (spec/errors.md section 3.1): ONNX's own rule (onnx.checker refuses a
// node whose input marked Single is "" or absent) applied to every node before shaping, so that a
// kernel never dereferences an input that is not there (issue 11, defect 2: Slice without `ends`).
#include <algorithm>
#include <string>
#include <utility>

#include "onemodel/session_error.hpp"
#include "reference/engine/input_signatures.hpp"

namespace onemodel {
namespace {

// The node's name as sessions report it (spec/session.md section 5).
std::string node_name(const IrNode& node) {
  if (!node.name.empty()) return node.name;
  return node.op_type + "#" + (node.outputs.empty() ? std::string() : node.outputs[0]);
}

[[noreturn]] void refuse(const IrNode& node, std::size_t position, std::string_view formal, const char* why) {
  throw SessionError(SessionErrorKind::InvalidModel,
                     node.op_type + " (opset " + std::to_string(node.opset) + "): input " + std::to_string(position) +
                         " ('" + std::string(formal) + "') " + why,
                     node_name(node));
}

}  // namespace

const InputSignature* find_input_signature(std::string_view domain, std::string_view op_type,
                                           std::int64_t opset) noexcept {
  if (!domain.empty() && domain != "ai.onnx") return nullptr;
  // Binary search (the table is sorted by operator, then since): session creation stays linear in
  // the number of nodes (issue 11, defect 5).
  const std::span<const InputSignature> all = input_signatures();
  const auto after = std::upper_bound(all.begin(), all.end(), std::pair(op_type, opset),
                                      [](const std::pair<std::string_view, std::int64_t>& key, const InputSignature& s) {
                                        const std::string_view op(s.op);
                                        return key.first < op || (key.first == op && key.second < s.since);
                                      });
  if (after == all.begin()) return nullptr;
  const InputSignature& found = *(after - 1);
  return op_type == std::string_view(found.op) ? &found : nullptr;
}

void check_required_inputs(const IrNode& node) {
  const InputSignature* signature = find_input_signature(node.domain, node.op_type, node.opset);
  if (signature == nullptr) return;
  std::string_view rest = signature->inputs;
  std::size_t position = 0;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view formal = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const char mark = formal.back();
    if (mark == '?') {
      ++position;
      continue;
    }
    if (mark == '*' || mark == '#') {
      formal.remove_suffix(1);
      if (mark == '*' && position >= node.inputs.size()) {
        refuse(node, position, formal, "needs at least one operand and has none");
      }
      for (std::size_t k = position; k < node.inputs.size(); ++k) {
        if (node.inputs[k].empty()) refuse(node, k, formal, "is a variadic operand given as \"\"");
      }
      return;
    }
    if (position >= node.inputs.size()) refuse(node, position, formal, "is required and left out");
    if (node.inputs[position].empty()) refuse(node, position, formal, "is required and given as \"\"");
    ++position;
  }
}

}  // namespace onemodel
