// The operator contract shared by both engines (spec/operator-contract.md, from graph-runtime.md
// section 2): a kernel object per node, made once by its factory from the node's attributes,
// stating its outputs in infer() and computing them in run().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

class RunControl;

// One input as infer() sees it: its type and shape always, its value when known now (a
// constant, or always in the reference engine).
struct InferInput {
  bool present = false;
  DType type = DType::F32;
  Shape shape;
  const Tensor* value = nullptr;
  // A compact weight (IrTensor::compact): a float16 or bfloat16 constant standing for binary32
  // values (spec/session.md section 9). Set by the optimized engine; a kernel with
  // accepts_compact_weights then shapes the input as the binary32 tensor it stands for.
  bool compact = false;
};

struct InferOutput {
  bool wanted = false;  // false for an omitted ("") output
  bool set = false;
  DType type = DType::F32;
  Shape shape;
  bool constant = false;
  Tensor value;  // when constant
};

class InferContext {
 public:
  // `from_caller[i]` is 1 when input i's value derives from a graph input (the caller's data),
  // 0 or absent when it comes from initializers and constants alone (spec/errors.md section 3.2).
  InferContext(const NodeInfo& node, std::span<const InferInput> inputs, std::span<InferOutput> outputs,
               std::span<const std::uint8_t> from_caller = {}) noexcept
      : node_(node), inputs_(inputs), outputs_(outputs), from_caller_(from_caller) {}

  const NodeInfo& node() const noexcept { return node_; }
  std::size_t input_count() const noexcept { return inputs_.size(); }
  bool has_input(std::size_t i) const noexcept { return i < inputs_.size() && inputs_[i].present; }
  DType input_type(std::size_t i) const;
  const Shape& input_shape(std::size_t i) const;
  // True when input i is a compact weight (InferInput::compact).
  bool input_compact(std::size_t i) const noexcept { return has_input(i) && inputs_[i].compact; }
  // The input's value when known at this point, else nullptr. A value read here is one the
  // kernel decides with (a shape, k, pads, scales...): if infer() then refuses the node with
  // InvalidModel and a value read came from the caller, infer_node() makes it InvalidInput.
  const Tensor* input_value(std::size_t i) const;
  // The same value, read only for a faster or equivalent form (a stand-in of the data, packed
  // weights): never a reason for a refusal to be the caller's.
  const Tensor* known_value(std::size_t i) const;
  // True when input i's value derives from a graph input (spec/errors.md section 3.2).
  bool input_from_caller(std::size_t i) const noexcept { return i < from_caller_.size() && from_caller_[i] != 0; }
  // True once input_value() has returned a value that derives from a graph input.
  bool read_caller_value() const noexcept { return read_caller_value_; }
  std::size_t output_count() const noexcept { return outputs_.size(); }
  bool output_wanted(std::size_t i) const noexcept { return i < outputs_.size() && outputs_[i].wanted; }
  // What infer() stated for output i so far.
  bool output_is_set(std::size_t i) const noexcept { return i < outputs_.size() && outputs_[i].set; }
  DType output_type(std::size_t i) const noexcept {
    if (i >= outputs_.size()) return DType::F32;
    return outputs_[i].constant ? outputs_[i].value.dtype() : outputs_[i].type;
  }

  void set_output(std::size_t i, DType type, const Shape& shape);
  // The output is this value for these input shapes (Constant, Shape, Size): the node is not run.
  void set_constant_output(std::size_t i, Tensor value);
  // The node needs an input value not known now; it will be shaped again with real values.
  void require_runtime_values() noexcept { needs_runtime_values_ = true; }
  bool needs_runtime_values() const noexcept { return needs_runtime_values_; }

  // Throws SessionError(Unsupported) naming the node, input and type unless the input's type is
  // one of `allowed`.
  void require_type(std::size_t i, std::initializer_list<DType> allowed) const;

  // The input descriptions as given.
  std::span<const InferInput> inputs() const noexcept { return inputs_; }
  // Runs `infer` on a context with the same node, outputs and caller marks but other input
  // descriptions (a compact weight shown as the binary32 tensor it stands for), and keeps what
  // it noted (runtime values needed, caller values read).
  template <class F>
  void infer_as(std::span<const InferInput> inputs, F&& infer) {
    InferContext inner(node_, inputs, outputs_, from_caller_);
    infer(inner);
    needs_runtime_values_ = needs_runtime_values_ || inner.needs_runtime_values_;
    read_caller_value_ = read_caller_value_ || inner.read_caller_value_;
  }

 private:
  const NodeInfo& node_;
  std::span<const InferInput> inputs_;
  std::span<InferOutput> outputs_;
  std::span<const std::uint8_t> from_caller_;
  bool needs_runtime_values_ = false;
  mutable bool read_caller_value_ = false;
};

// Where a run's temporaries and data-dependent outputs come from. The reference engine has none
// (fresh tensors from the shared pool); the optimized engine gives its run state's arena
// (graph-runtime.md section 5).
class RunMemory {
 public:
  virtual ~RunMemory() = default;
  virtual Tensor allocate(DType type, const Shape& shape) = 0;
  // The run these allocations are charged to (spec/session.md sections 7 and 8): a subgraph body
  // run within the node takes its stop test and what is left of its limit. nullptr outside a run.
  virtual RunControl* run_control() noexcept { return nullptr; }
};

class RunContext {
 public:
  RunContext(const NodeInfo& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
             RunMemory* memory = nullptr, const void* state = nullptr) noexcept
      : node_(node), inputs_(inputs), outputs_(outputs), memory_(memory), state_(state) {}

  const NodeInfo& node() const noexcept { return node_; }
  bool exact() const noexcept { return node_.exact(); }
  std::size_t input_count() const noexcept { return inputs_.size(); }
  bool has_input(std::size_t i) const noexcept { return i < inputs_.size() && inputs_[i].defined(); }
  const Tensor& input(std::size_t i) const;
  std::size_t output_count() const noexcept { return outputs_.size(); }
  // Outputs allocated for the shapes infer() stated (contiguous). Undefined for omitted outputs,
  // and for every output of a kernel with outputs_data_dependent.
  const Tensor& output(std::size_t i) const;
  bool output_wanted(std::size_t i) const noexcept;
  // For kernels with outputs_data_dependent: allocates output i now.
  const Tensor& allocate_output(std::size_t i, DType type, const Shape& shape);
  // For kernels with outputs_data_dependent: output i is `tensor`, made by the kernel itself (a
  // subgraph body's result); its bytes are charged to the run first, as an allocation would be.
  void adopt_output(std::size_t i, Tensor tensor);
  // The run's control (RunMemory::run_control), or nullptr.
  RunControl* run_control() const noexcept { return memory_ != nullptr ? memory_->run_control() : nullptr; }
  // A temporary that lives until the node finishes.
  Tensor scratch(DType type, const Shape& shape) const;
  // What prepare() returned for this node in this plan (nullptr when it returned nothing).
  const void* state() const noexcept { return state_; }
  // The same node and run memory over other tensors and state: how a wrapping kernel (the
  // half-precision adapter) runs the kernel it wraps.
  RunContext with(std::span<const Tensor> inputs, std::span<Tensor> outputs, const void* state) const noexcept {
    return RunContext(node_, inputs, outputs, memory_, state);
  }
  // The same node, outputs, memory and state with other inputs (a compact weight widened for a
  // kernel that reads binary32, OptimizedKernel::run_reference).
  RunContext with_inputs(std::span<const Tensor> inputs) const noexcept {
    return RunContext(node_, inputs, outputs_, memory_, state_);
  }

 private:
  const NodeInfo& node_;
  std::span<const Tensor> inputs_;
  std::span<Tensor> outputs_;
  RunMemory* memory_;
  const void* state_;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // States every wanted output (type and shape), or constants. Not called for kernels with
  // outputs_data_dependent.
  virtual void infer(InferContext& context) const = 0;
  // Fills the outputs. Must not keep state between runs: a kernel is shared by every run.
  virtual void run(RunContext& context) const = 0;
  // Optional, at plan creation after infer() (optimized engine only): turns constant inputs
  // (context.input_value) into a faster form, e.g. packed weights. What it returns is owned by
  // the plan and reaches every run of the node as RunContext::state() (graph-runtime.md section 2).
  virtual std::shared_ptr<const void> prepare(const InferContext& context) const {
    (void)context;
    return nullptr;
  }

  // Flags (spec/operator-contract.md section 3).
  bool supports_exact = true;
  int in_place_input = -1;             // output 0 may reuse this input's storage
  int in_place_second = -1;            // or this one's, when in_place_input's cannot be reused
  bool view_of_input = false;          // output 0 is input 0 reinterpreted (run() still correct)
  bool outputs_data_dependent = false;
  // Input 1 may be a compact weight (IrTensor::compact: float16 or bfloat16 beside binary32
  // activations), widened by the kernel itself inside its packing; otherwise the half-precision
  // adapter widens it into run scratch before the kernel sees it (spec/half-precision.md).
  bool accepts_compact_weights = false;
  // False when the float64 form of an otherwise exact operator needs a transcendental function
  // (exp, log, tanh, erf): the library has exact ones for binary32 only, so in exact mode a node
  // whose input 0 is float64 is refused with ExactModeUnavailable when it is shaped (infer_node;
  // spec/exact-mode.md section 4). Fast mode runs it with the platform's double functions.
  bool float64_exact = true;
  // The kernel takes or makes STRING tensors (spec/tensors.md section 8). Every other kernel is
  // refused STRING inputs and outputs with Unsupported by infer_node and check_string_inputs, so
  // no kernel that moves elements as bytes ever sees std::string objects.
  bool string_elements = false;
  // The outputs are random draws (spec/ops/random.md): they depend on the run (its random seed),
  // so an engine never evaluates the node before the run, even when its inputs are constants.
  bool draws_random = false;
};

// spec/tensors.md section 8: Unsupported naming the node when a STRING input reaches a kernel
// without string_elements. Called by both engines for kernels with outputs_data_dependent (which
// infer_node does not see); infer_node checks the others.
void check_string_inputs(const OpKernel& kernel, const NodeInfo& node, std::span<const Tensor> inputs);

// Both engines shape nodes through this (spec/errors.md section 3.2): kernel.infer(context), and
// an InvalidModel it raises after reading a value that derives from a graph input is rethrown as
// InvalidInput with the same message and node. A refused value from initializers or constants
// stays InvalidModel; other kinds are unchanged. Then, in exact mode, a kernel without
// float64_exact whose input 0 is float64 is refused with ExactModeUnavailable naming the operator.
void infer_node(const OpKernel& kernel, InferContext& context);

using OpFactory = std::unique_ptr<OpKernel> (*)(const NodeInfo& node);

struct OpDef {
  const char* domain;  // "" for the default domain (ai.onnx)
  const char* op_type;
  int min_opset;
  int max_opset;  // inclusive
  OpFactory factory;
  // The element types the operator serves for its main input: the input whose type it is generic
  // over (X, data, A, input 0 unless the row's comment names another), as the space-separated
  // names dtype_name() prints, in the order F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64 Bool.
  // `any` is every stored type, for operators that only move bytes or read shapes (and Constant
  // and ConstantOfShape, which produce every stored type). Where an attribute narrows the set
  // (Mod's fmod, a Scatter reduction) this is the widest set and the row's comment says which.
  // Printed into spec/operators.tsv (spec/operator-contract.md section 1); nullptr: not stated.
  const char* element_types = nullptr;
};

// The definition serving (domain, op_type, opset), or nullptr. "ai.onnx" is the default domain.
const OpDef* find_op(std::string_view domain, std::string_view op_type, std::int64_t opset);
// Every definition, in table order (for spec/operators.tsv).
std::span<const OpDef> all_ops();

// spec/exact-mode.md rule 4: every NaN an exact kernel stores is the quiet NaN 0x7FC00000.
float canonical_nan_f32(float value) noexcept;

}  // namespace onemodel
