// What a kernel factory sees of its node: the IR node, its opset, the session's mode, and typed
// attribute access that raises SessionError(InvalidModel) naming the node (spec/operator-contract.md
// section 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

class SubgraphCompiler;

class NodeInfo {
 public:
  NodeInfo(const IrNode& node, std::int64_t opset, ExecutionMode mode) noexcept
      : node_(&node), opset_(opset), mode_(mode) {}

  const IrNode& ir() const noexcept { return *node_; }
  std::int64_t opset() const noexcept { return opset_; }
  ExecutionMode mode() const noexcept { return mode_; }
  bool exact() const noexcept { return mode_ == ExecutionMode::Exact; }
  // The node's name, or "<op_type>#<outputs[0]>" when the file gives none.
  std::string name() const;
  std::size_t input_count() const noexcept { return node_->inputs.size(); }
  std::size_t output_count() const noexcept { return node_->outputs.size(); }
  bool has_input(std::size_t i) const noexcept { return i < node_->inputs.size() && !node_->inputs[i].empty(); }

  const IrAttribute* find(std::string_view name) const noexcept;
  bool has(std::string_view name) const noexcept { return find(name) != nullptr; }

  // Each getter checks the attribute's type; a missing attribute gives the default, or, for the
  // required_* forms, throws InvalidModel.
  std::int64_t get_int(std::string_view name, std::int64_t fallback) const;
  std::int64_t required_int(std::string_view name) const;
  float get_float(std::string_view name, float fallback) const;
  std::string get_string(std::string_view name, std::string_view fallback) const;
  std::vector<std::int64_t> get_ints(std::string_view name, std::vector<std::int64_t> fallback = {}) const;
  std::vector<float> get_floats(std::string_view name, std::vector<float> fallback = {}) const;
  std::vector<std::string> get_strings(std::string_view name, std::vector<std::string> fallback = {}) const;
  // A TENSOR attribute copied into a Tensor (nullopt when absent). Element types the library does
  // not store throw SessionError(Unsupported).
  std::optional<Tensor> get_tensor(std::string_view name) const;

  // What compiles the node's subgraph bodies (core/graph/subgraph.hpp), set by make_kernels.
  // Throws SessionError(Unsupported) when the node is being made without one.
  const SubgraphCompiler& subgraphs() const;
  void set_subgraphs(const SubgraphCompiler* subgraphs) noexcept { subgraphs_ = subgraphs; }

  [[noreturn]] void fail_invalid(const std::string& message) const;
  [[noreturn]] void fail_unsupported(const std::string& message) const;

 private:
  const IrAttribute& expect(std::string_view name, AttrType type) const;
  const IrNode* node_;
  std::int64_t opset_;
  ExecutionMode mode_;
  const SubgraphCompiler* subgraphs_ = nullptr;
};

// Copies an IR tensor (raw little-endian layout) into a Tensor owning its bytes. Throws
// SessionError(Unsupported) for element types the library does not store and for shapes over its
// limits (spec/tensors.md section 3). `what` names it in the message.
Tensor tensor_from_ir(const IrTensor& tensor, const std::string& what);

}  // namespace onemodel
