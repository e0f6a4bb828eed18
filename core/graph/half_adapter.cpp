#include "core/graph/half_adapter.hpp"

#include <array>
#include <span>
#include <stdexcept>
#include <cstring>
#include <string_view>

#include "core/graph/half_convert.hpp"
#include "core/util/inline_list.hpp"

namespace onemodel {
namespace {

bool is_half(DType type) noexcept { return type == DType::F16 || type == DType::BF16; }
bool is_half_code(std::int32_t code) noexcept { return code == 10 || code == 16; }

bool type_is_half(const IrType& type) {
  if (type.kind == IrType::Kind::Tensor || type.kind == IrType::Kind::SparseTensor) return is_half_code(type.elem_type);
  for (const IrType& inner : type.inner) {
    if (type_is_half(inner)) return true;
  }
  return false;
}

bool attributes_make_half(const IrNode& node) {
  for (const IrAttribute& attribute : node.attributes) {
    // Cast's `to`; EyeLike, RandomNormal... `dtype`; DequantizeLinear's `output_dtype`.
    if (attribute.type == AttrType::Int && (attribute.name == "to" || attribute.name == "dtype" ||
                                            attribute.name == "output_dtype") &&
        is_half_code(static_cast<std::int32_t>(attribute.i))) {
      return true;
    }
    for (const IrTensor& tensor : attribute.tensors) {
      if (is_half_code(tensor.data_type)) return true;
    }
    for (const IrGraph& sub : attribute.graphs) {
      if (scan_half_precision(sub).half_values) return true;
    }
  }
  return false;
}

// Section 8.3: operators that never get the adapter. The first six are fp16.md's list. Views and
// data-dependent outputs come from the kernel's flags, and rows whose types are `any` only move
// or read bytes (Concat, Gather, Transpose, Pad...): widening and rounding back would give the
// same bits but for a signalling NaN's quiet bit, at the cost of two passes over the data. The
// rest read or select values without arithmetic and serve 16-bit types themselves (a comparison
// of widened values is the comparison of the values), or have value-dependent output shapes.
bool never_wrapped_name(std::string_view op) {
  static constexpr std::array<std::string_view, 18> kNames = {
      "Cast",  "CastLike",   "Constant", "ConstantOfShape", "Shape",   "Size",
      "Equal", "Greater",    "Less",     "GreaterOrEqual",  "LessOrEqual", "Where",
      "IsInf", "IsNaN",      "NonZero",  "OneHot",          "TopK",    "Range"};
  for (std::string_view name : kNames) {
    if (name == op) return true;
  }
  return false;
}

bool default_domain(const IrNode& node) { return node.domain.empty() || node.domain == "ai.onnx"; }

bool is_binary16_arithmetic(std::string_view op) { return op == "Add" || op == "Sub" || op == "Mul" || op == "Div"; }

// The adapter's state for one plan (section 8.4): the constant half inputs widened once, and what
// the wrapped kernel's own prepare() returned for the widened inputs.
struct AdapterState {
  std::vector<Tensor> widened;  // by input position; undefined where not widened at plan time
  std::shared_ptr<const void> inner;
};

class HalfAdapterKernel final : public OpKernel {
 public:
  HalfAdapterKernel(std::unique_ptr<OpKernel> inner, std::vector<bool> compact, const HalfAdapterOptions& options)
      : inner_(std::move(inner)), compact_(std::move(compact)), options_(options) {
    supports_exact = inner_->supports_exact;
    accepts_compact_weights = inner_->accepts_compact_weights;
    float64_exact = inner_->float64_exact;
    draws_random = inner_->draws_random;
    string_elements = inner_->string_elements;
    // The wrapped node writes a fresh binary32 output and rounds it into its own: it never
    // shares a buffer with an input.
    in_place_input = -1;
  }

  const OpKernel& inner() const noexcept { return *inner_; }
  std::unique_ptr<OpKernel> with_inner(std::unique_ptr<OpKernel> inner) const {
    return std::make_unique<HalfAdapterKernel>(std::move(inner), compact_, options_);
  }

  void infer(InferContext& context) const override {
    const Roles roles = roles_for(context.node(), context.input_count(),
                                  [&](std::size_t i) { return context.has_input(i) ? context.input_type(i) : DType::F32; });
    if (!roles.adapt) {
      inner_->infer(context);
      return;
    }
    std::vector<Tensor> widened(context.input_count());
    std::vector<InferInput> inputs = widened_inputs(context, roles, widened, /*constants_only=*/false);
    std::vector<InferOutput> outputs(context.output_count());
    for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].wanted = context.output_wanted(i);
    std::vector<std::uint8_t> from_caller = caller_marks(context);
    InferContext inner(context.node(), inputs, outputs, from_caller);
    infer_node(*inner_, inner);
    if (inner.needs_runtime_values()) {
      context.require_runtime_values();
      return;
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const InferOutput& out = outputs[i];
      if (!out.wanted || !out.set) continue;
      const DType type = out.type == DType::F32 ? roles.storage : out.type;
      if (out.constant) {
        context.set_constant_output(i, type == out.type ? out.value : narrow_tensor(out.value, type));
      } else {
        context.set_output(i, type, out.shape);
      }
    }
  }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    const Roles roles = roles_for(context.node(), context.input_count(),
                                  [&](std::size_t i) { return context.has_input(i) ? context.input_type(i) : DType::F32; });
    if (!roles.adapt) return inner_->prepare(context);
    auto state = std::make_shared<AdapterState>();
    state->widened.resize(context.input_count());
    std::vector<InferInput> inputs = widened_inputs(context, roles, state->widened, /*constants_only=*/true);
    std::vector<InferOutput> outputs(context.output_count());
    for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].wanted = context.output_wanted(i);
    std::vector<std::uint8_t> from_caller = caller_marks(context);
    InferContext inner(context.node(), inputs, outputs, from_caller);
    infer_node(*inner_, inner);
    state->inner = inner_->prepare(inner);
    return state;
  }

  void run(RunContext& context) const override {
    const Roles roles = roles_for(context.node(), context.input_count(),
                                  [&](std::size_t i) { return context.has_input(i) ? context.input(i).dtype() : DType::F32; });
    if (!roles.adapt) {
      inner_->run(context);
      return;
    }
    const auto* state = static_cast<const AdapterState*>(context.state());
    InlineList<Tensor, 8> inputs(context.input_count());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!context.has_input(i)) continue;
      const Tensor& given = context.input(i);
      if (!roles.widen[i]) {
        inputs[i] = given;
      } else if (state != nullptr && i < state->widened.size() && state->widened[i].defined()) {
        inputs[i] = state->widened[i];
      } else {
        inputs[i] = conversion_buffer(given.shape());
        widen(given, inputs[i]);
      }
    }
    InlineList<Tensor, 8> outputs(context.output_count());
    InlineList<std::uint8_t, 8> round(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!context.output_wanted(i)) continue;
      const Tensor& given = context.output(i);
      if (roles.storage != DType::F32 && given.dtype() == roles.storage) {
        outputs[i] = conversion_buffer(given.shape());
        round[i] = true;
      } else {
        outputs[i] = given;
      }
    }
    RunContext inner = context.with(inputs.span(), outputs.span(), state != nullptr ? state->inner.get() : nullptr);
    inner_->run(inner);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (round[i]) narrow(outputs[i], context.output(i));
    }
  }

 private:
  struct Roles {
    explicit Roles(std::size_t inputs) : widen(inputs) {}
    bool adapt = false;
    DType storage = DType::F32;           // the outputs' type where the kernel makes binary32
    InlineList<std::uint8_t, 16> widen;  // by input position
  };

  // Section 8.2: which inputs are widened and which type the binary32 outputs are rounded to,
  // from the input types alone (so infer, prepare and run decide the same).
  template <typename TypeOf>
  Roles roles_for(const NodeInfo& node, std::size_t count, TypeOf type_of) const {
    Roles roles(count);
    bool storage_set = false;
    bool all_binary16 = count != 0;
    for (std::size_t i = 0; i < count; ++i) {
      const bool present = i < node.ir().inputs.size() && !node.ir().inputs[i].empty();
      if (!present) continue;
      const DType type = type_of(i);
      all_binary16 = all_binary16 && type == DType::F16;
      if (!is_half(type)) continue;
      roles.widen[i] = 1;
      roles.adapt = true;
      const bool compact = i < compact_.size() && compact_[i];
      if (!compact && !storage_set) {
        roles.storage = type;
        storage_set = true;
      }
    }
    // fp16.md: element-wise Add, Sub, Mul, Div with every input binary16 compute in binary16
    // themselves (one correctly rounded operation, so the same bits either way).
    if (options_.binary16_arithmetic_native && all_binary16 && is_binary16_arithmetic(node.ir().op_type) &&
        default_domain(node.ir())) {
      roles.adapt = false;
    }
    // A compact weight the kernel widens in its own packing is passed as it is.
    if (roles.adapt && inner_->accepts_compact_weights && !storage_set) roles.adapt = false;
    return roles;
  }

  // The inputs as the wrapped kernel sees them: binary32 where widened, with the value widened
  // when known (all of them in infer; at plan time only constants, and never a compact weight,
  // which must stay 16-bit in the plan and is widened per run).
  std::vector<InferInput> widened_inputs(const InferContext& context, const Roles& roles, std::vector<Tensor>& widened,
                                         bool constants_only) const {
    std::vector<InferInput> inputs(context.input_count());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!context.has_input(i)) continue;
      inputs[i].present = true;
      inputs[i].type = context.input_type(i);
      inputs[i].shape = context.input_shape(i);
      inputs[i].value = context.known_value(i);
      if (!roles.widen[i]) continue;
      inputs[i].type = DType::F32;
      const bool compact = i < compact_.size() && compact_[i];
      if (inputs[i].value == nullptr || (constants_only && compact)) {
        inputs[i].value = nullptr;
        continue;
      }
      widened[i] = widen_tensor(*inputs[i].value);
      inputs[i].value = &widened[i];
    }
    return inputs;
  }

  // Section 8.4: the binary32 copies of a node's 16-bit inputs and outputs are working memory of
  // the node, from the buffer pool and returned to it when the node ends, so that the next node
  // reuses them. From the run's memory (the optimized engine's arena) they would stay until the
  // run ends and add up over the nodes: 8 GiB for the Whisper encoder.
  static Tensor conversion_buffer(const Shape& shape) { return Tensor::empty(DType::F32, shape); }

  // Run-time conversions through the engine's bulk functions when it gave them.
  void widen(const Tensor& half, const Tensor& out) const {
    if (!options_.widen || !half.is_contiguous() || half.shape() != out.shape()) {
      widen_into(half, out);
      return;
    }
    const auto in = half.data<std::uint16_t>();
    options_.widen(in.data(), out.mutable_data<float>().data(), in.size(), half.dtype() == DType::BF16);
  }
  void narrow(const Tensor& f32, const Tensor& out) const {
    if (!options_.narrow || !f32.is_contiguous() || f32.shape() != out.shape()) {
      narrow_into(f32, out);
      return;
    }
    const auto in = f32.data<float>();
    options_.narrow(in.data(), out.mutable_data<std::uint16_t>().data(), in.size(), out.dtype() == DType::BF16);
  }

  static std::vector<std::uint8_t> caller_marks(const InferContext& context) {
    std::vector<std::uint8_t> marks(context.input_count(), 0);
    for (std::size_t i = 0; i < marks.size(); ++i) marks[i] = context.input_from_caller(i) ? 1 : 0;
    return marks;
  }

  std::unique_ptr<OpKernel> inner_;
  std::vector<bool> compact_;  // by input position: a compact weight
  HalfAdapterOptions options_;
};

bool node_reads_compact(const IrGraph& graph, const IrNode& node, std::vector<bool>& compact) {
  compact.assign(node.inputs.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const std::string& name = node.inputs[i];
    if (name.empty()) continue;
    auto it = graph.value_index.find(name);
    if (it == graph.value_index.end() || it->second < 0 || static_cast<std::size_t>(it->second) >= graph.values.size()) {
      continue;
    }
    const IrValue& value = graph.values[static_cast<std::size_t>(it->second)];
    if (value.source != IrValue::Source::Initializer || value.index < 0 ||
        static_cast<std::size_t>(value.index) >= graph.initializers.size()) {
      continue;
    }
    if (graph.initializers[static_cast<std::size_t>(value.index)].compact) {
      compact[i] = true;
      any = true;
    }
  }
  return any;
}

}  // namespace

HalfScan scan_half_precision(const IrGraph& graph) {
  HalfScan scan;
  for (const IrTensor& initializer : graph.initializers) {
    if (!is_half_code(initializer.data_type)) continue;
    if (initializer.compact) {
      scan.compact_weights = true;
    } else {
      scan.half_values = true;
    }
  }
  for (const auto* list : {&graph.inputs, &graph.outputs, &graph.value_info}) {
    for (const IrValueInfo& info : *list) scan.half_values = scan.half_values || type_is_half(info.type);
  }
  for (const IrSparseTensor& sparse : graph.sparse_initializers) {
    scan.half_values = scan.half_values || is_half_code(sparse.values.data_type);
  }
  for (const IrNode& node : graph.nodes) {
    if (scan.half_values) break;
    scan.half_values = attributes_make_half(node);
  }
  return scan;
}

const OpKernel& unwrap_half_adapter(const OpKernel& kernel) noexcept {
  const auto* adapter = dynamic_cast<const HalfAdapterKernel*>(&kernel);
  return adapter != nullptr ? adapter->inner() : kernel;
}

std::unique_ptr<OpKernel> rewrap_half_adapter(const OpKernel& adapter, std::unique_ptr<OpKernel> inner) {
  const auto* wrapped = dynamic_cast<const HalfAdapterKernel*>(&adapter);
  if (wrapped == nullptr) throw std::invalid_argument("rewrap_half_adapter: not a half-precision adapter");
  return wrapped->with_inner(std::move(inner));
}

bool never_half_wrapped(const IrNode& node, const OpKernel& kernel, const char* element_types) {
  if (kernel.view_of_input || kernel.outputs_data_dependent) return true;
  // `any` (and `any String`): an operator that only moves elements.
  if (element_types != nullptr && std::string_view(element_types).substr(0, 3) == "any") return true;
  return default_domain(node) && never_wrapped_name(node.op_type);
}

std::unique_ptr<OpKernel> adapt_for_half_precision(std::unique_ptr<OpKernel> kernel, const IrGraph& graph,
                                                   const IrNode& node, const HalfScan& scan,
                                                   const char* element_types, const HalfAdapterOptions& options) {
  if (!scan.half_values && !scan.compact_weights) return kernel;
  if (never_half_wrapped(node, *kernel, element_types)) return kernel;
  std::vector<bool> compact;
  const bool reads_compact = node_reads_compact(graph, node, compact);
  // Section 8.5: in a binary32 model with compact weights only their readers change.
  if (!scan.half_values && (!reads_compact || kernel->accepts_compact_weights)) return kernel;
  return std::make_unique<HalfAdapterKernel>(std::move(kernel), std::move(compact), options);
}

}  // namespace onemodel
