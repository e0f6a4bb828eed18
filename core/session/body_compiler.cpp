// Compiling subgraph bodies into engines of the session's kind (spec/values.md section 3).
#include "core/session/body_compiler.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/packed_value.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "core/session/run_control.hpp"
#include "onemodel/error.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

// Hands a body's results to the node's slots: in place into a defined slot of the same type and
// shape (a loop-carried buffer, a slice of a stacked output), else into a new tensor charged to
// the body's run.
class BodySink final : public OutputSink {
 public:
  BodySink(std::span<Tensor> outputs, RunControl& control) : outputs_(outputs), control_(control) {}
  void deliver(std::size_t index, const Tensor& result) override {
    Tensor& slot = outputs_[index];
    const bool fits = slot.defined() && !slot.is_stale() && slot.dtype() == result.dtype() &&
                      slot.shape() == result.shape() && slot.is_contiguous();
    if (!fits) {
      control_.charge(result.dtype(), result.shape(), "a result of a subgraph");
      slot = Tensor::empty(result.dtype(), result.shape());
    }
    // The result may be the slot itself (a body output that is its input): nothing to copy.
    if (slot.buffer() == result.buffer() && slot.byte_offset() == result.byte_offset() && slot.offset() == result.offset()) {
      return;
    }
    result.copy_elements_to(slot);
  }

 private:
  std::span<Tensor> outputs_;
  RunControl& control_;
};

class EngineBody final : public Body {
 public:
  EngineBody(const IrGraph& graph, std::unique_ptr<IrModel> model, std::unique_ptr<Engine> engine)
      : Body(graph), model_(std::move(model)), engine_(std::move(engine)) {
    for (const IrValueInfo& input : model_->graph.inputs) {
      input_names_.push_back(input.name);
      wants_optional_.push_back(input.type.kind == IrType::Kind::Optional ? 1 : 0);
    }
    for (const IrValueInfo& output : model_->graph.outputs) output_names_.push_back(output.name);
  }

  void run(const RunContext& parent, std::span<const Tensor> inputs, std::span<Tensor> outputs) const override {
    if (inputs.size() != input_names_.size() || outputs.size() != output_names_.size()) {
      throw SessionError(SessionErrorKind::InvalidModel, "a subgraph was given " + std::to_string(inputs.size()) +
                                                             " inputs for " + std::to_string(input_names_.size()));
    }
    // Outside a run (never for these data-dependent kernels) the body gets the default limit.
    const RunControl detached(kDefaultMemoryLimitBytes, RunOptions{});
    const RunControl* outer = parent.run_control();
    RunControl control(outer != nullptr ? *outer : detached, RunControl::Nested{});
    BodySink sink(outputs, control);
    // spec/values.md section 3: a tensor or a sequence arriving where the body declares an
    // optional (a loop-carried value the body returns unwrapped) is an optional holding it.
    std::vector<Tensor> wrapped;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (wants_optional_[i] == 0 || is_packed_optional(inputs[i])) continue;
      if (wrapped.empty()) wrapped.assign(inputs.begin(), inputs.end());
      const Value held = is_packed_value(inputs[i]) ? unpack_value(inputs[i], "input '" + input_names_[i] + "'")
                                                    : Value(inputs[i]);
      wrapped[i] = pack_value(Value::optional(held), "input '" + input_names_[i] + "'");
    }
    engine_->run(input_names_, wrapped.empty() ? inputs : std::span<const Tensor>(wrapped), output_names_, sink, control);
  }

 private:
  std::unique_ptr<IrModel> model_;  // the engine keeps pointers into it
  std::unique_ptr<Engine> engine_;
  std::vector<std::string> input_names_;
  std::vector<std::string> output_names_;
  std::vector<std::uint8_t> wants_optional_;  // by input: 1 when the body declares an optional
};

class BodyCompiler final : public SubgraphCompiler {
 public:
  BodyCompiler(const IrModel& model, const SessionOptions& options, EngineParent parent, EngineFactory factory)
      : model_(model), options_(options), parent_(std::move(parent)), factory_(std::move(factory)) {}

  std::unique_ptr<Body> compile(const IrGraph& body, const NodeInfo& node) const override {
    if (parent_.depth + 1 > kMaxSubgraphDepth) {
      throw SessionError(SessionErrorKind::Unsupported,
                         "subgraphs nest deeper than the limit of " + std::to_string(kMaxSubgraphDepth), node.name());
    }
    auto model = std::make_unique<IrModel>();
    model->ir_version = model_.ir_version;
    model->opset_imports = model_.opset_imports;
    model->source_name = model_.source_name;
    model->graph = body;
    // The captures become inputs of the body's own model; untyped: whatever arrives is accepted.
    for (const std::string& name : body.captures) model->graph.inputs.push_back(IrValueInfo{name, IrType{}, {}});
    try {
      resolve_model(*model, FieldPathStyle::Onnx);
    } catch (const ModelError& e) {
      throw SessionError(SessionErrorKind::InvalidModel, "subgraph '" + body.name + "': " + e.describe(), node.name());
    }
    append_capture_inputs(model->graph);
    EngineParent child{parent_.depth + 1, parent_.thread_pool};
    std::unique_ptr<Engine> engine;
    try {
      engine = factory_(*model, body_options(), child);
    } catch (const SessionError& e) {
      if (!e.node_name().empty()) throw;
      throw SessionError(e.kind(), "subgraph '" + body.name + "': " + e.message(), node.name(), e.operators());
    }
    return std::make_unique<EngineBody>(body, std::move(model), std::move(engine));
  }

  std::int64_t max_loop_iterations() const noexcept override { return options_.max_loop_iterations; }

  // spec/values.md section 3: a body's input shapes often change from one iteration to the next
  // (a growing key/value cache, a kept set that grows); its engine keeps at least
  // kMinBodyCachedPlans plans so that a loop of that many distinct shapes plans each once per
  // session instead of evicting and re-planning on every call.
  SessionOptions body_options() const {
    SessionOptions o = options_;
    o.max_cached_plans = std::max(o.max_cached_plans, kMinBodyCachedPlans);
    return o;
  }

  const IrType* declared_type(const std::string& name) const noexcept override {
    const auto it = model_.graph.value_index.find(name);
    if (it == model_.graph.value_index.end() || it->second < 0 ||
        static_cast<std::size_t>(it->second) >= model_.graph.values.size()) {
      return nullptr;
    }
    const IrType& type = model_.graph.values[static_cast<std::size_t>(it->second)].type;
    return type.kind == IrType::Kind::None ? nullptr : &type;
  }

 private:
  const IrModel& model_;
  SessionOptions options_;
  EngineParent parent_;
  EngineFactory factory_;
};

}  // namespace

void check_subgraph_limits(const IrGraph& graph) {
  std::int64_t count = 0;
  std::vector<std::pair<const IrGraph*, int>> pending{{&graph, 0}};
  while (!pending.empty()) {
    const auto [g, depth] = pending.back();
    pending.pop_back();
    for (const IrNode& node : g->nodes) {
      for (const IrAttribute& attribute : node.attributes) {
        for (const IrGraph& sub : attribute.graphs) {
          if (depth + 1 > kMaxSubgraphDepth) {
            throw SessionError(SessionErrorKind::Unsupported, "subgraphs nest deeper than the limit of " +
                                                                  std::to_string(kMaxSubgraphDepth) + " levels");
          }
          if (++count > kMaxSubgraphCount) {
            throw SessionError(SessionErrorKind::Unsupported, "the model holds more than the limit of " +
                                                                  std::to_string(kMaxSubgraphCount) + " subgraphs");
          }
          pending.emplace_back(&sub, depth + 1);
        }
      }
    }
  }
}

std::unique_ptr<SubgraphCompiler> make_body_compiler(const IrModel& model, const SessionOptions& options,
                                                     const EngineParent& parent, EngineFactory factory) {
  return std::make_unique<BodyCompiler>(model, options, parent, std::move(factory));
}

}  // namespace onemodel
