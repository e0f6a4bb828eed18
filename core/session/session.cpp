// Session: validation of inputs and outputs, the engine choice, disposal
// (spec/session.md sections 3 to 5, from graph-runtime.md section 4).
#include "onemodel/session.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <unordered_set>

#include "core/graph/packed_value.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/session/body_compiler.hpp"
#include "core/session/compact_weights.hpp"
#include "core/session/engine.hpp"
#include "core/session/name_index.hpp"
#include "core/session/run_control.hpp"
#include "core/session/tensor_info.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/onnx_import.hpp"
#include "onemodel/run_profile.hpp"

namespace onemodel {

class SessionImpl {
 public:
  SessionImpl(IrModel model, const SessionOptions& options)
      : model_(compacted(std::move(model), options.weight_storage)),
        options_(options),
        inputs_(required_inputs(model_.graph)),
        outputs_(declared_outputs(model_.graph)) {
    // spec/values.md sections 3 and 5: the subgraph limits before anything is made, then each node
    // holding subgraphs reads the outer values they capture as inputs of its own.
    check_subgraph_limits(model_.graph);
    append_capture_inputs(model_.graph);
    // The optimized engine runs the reference kernel for every operator it does not override
    // (DESIGN.md section 1), so both choices serve the same models.
    engine_ = options_.engine == EngineKind::Reference ? make_reference_engine(model_, options_)
                                                         : make_optimized_engine(model_, options_);
    // spec/session.md section 9: both engines copied the compact weights into their own tensors;
    // the model's 16-bit bytes were only their source and would be a second copy for the
    // session's life. No one reads an initializer's bytes after the engine is made.
    for (IrTensor& initializer : model_.graph.initializers) {
      if (initializer.compact) initializer.data = ByteView{};
    }
    for (const IrValueInfo& input : model_.graph.inputs) accepted_inputs_.push_back(tensor_info_from(input));
    accepted_index_ = NameIndex(names_of(accepted_inputs_));
    output_index_ = NameIndex(names_of(outputs_));
    required_.assign(accepted_inputs_.size(), 0);
    for (const TensorInfo& info : inputs_) {
      const std::ptrdiff_t i = accepted_index_.find(info.name);
      if (i >= 0) required_[static_cast<std::size_t>(i)] = 1;
    }
  }

  // spec/session.md section 9: WeightStorage rounds the compactable weights before any engine
  // sees the model.
  static IrModel compacted(IrModel model, WeightStorage storage) {
    compact_weights(model, storage);
    return model;
  }

  static std::vector<std::string> names_of(const std::vector<TensorInfo>& infos) {
    std::vector<std::string> names;
    names.reserve(infos.size());
    for (const TensorInfo& info : infos) names.push_back(info.name);
    return names;
  }

  // The model the engine was made from: nodes and declarations (the engines keep pointers into
  // it). Not const only so the constructor can drop the compact weights' bytes.
  IrModel model_;
  const SessionOptions options_;
  const std::vector<TensorInfo> inputs_;
  const std::vector<TensorInfo> outputs_;
  std::vector<TensorInfo> accepted_inputs_;  // required ones and those with a default
  NameIndex accepted_index_;                 // over accepted_inputs_
  NameIndex output_index_;                   // over outputs_
  std::vector<std::uint8_t> required_;       // by accepted input: 1 when it is in inputs_
  std::unique_ptr<Engine> engine_;
  std::atomic<bool> disposed_{false};
};

namespace {

void check_alive(const std::shared_ptr<SessionImpl>& impl) {
  if (!impl || impl->disposed_.load(std::memory_order_acquire)) {
    throw SessionError(SessionErrorKind::Disposed, "the session was disposed");
  }
}

// Which accepted inputs this thread's current run named: stamp[i] == run when input i was given.
// Per thread and reused, so a warm run allocates nothing; check_names never nests.
struct GivenMarks {
  std::vector<std::uint64_t> stamp;
  std::uint64_t run = 0;
};
thread_local GivenMarks given_marks;

}  // namespace

Session::Session(std::shared_ptr<SessionImpl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Session Session::create(IrModel model, const SessionOptions& options) {
  if (options.intra_op_threads < 0 || options.intra_op_threads > 256) {
    throw SessionError(SessionErrorKind::Unsupported, "intra_op_threads must be 0 to 256");
  }
  if (options.max_cached_plans < 1) {
    throw SessionError(SessionErrorKind::Unsupported, "max_cached_plans must be at least 1");
  }
  if (options.memory_limit_bytes < 1) {
    throw SessionError(SessionErrorKind::Unsupported, "memory_limit_bytes must be at least 1");
  }
  return Session(std::make_shared<SessionImpl>(std::move(model), options));
}

Session Session::load(const std::filesystem::path& path, const SessionOptions& options) {
  return create(load_model_file(path), options);
}

Session Session::load_bytes(const ByteView& bytes, const std::string& name, const SessionOptions& options) {
  if (is_onemodel_bytes(bytes.span())) return create(read_onemodel_bytes(bytes, name), options);
  return create(import_onnx_bytes(bytes, name), options);
}

const std::vector<TensorInfo>& Session::inputs() const {
  check_alive(impl_);
  return impl_->inputs_;
}

const std::vector<TensorInfo>& Session::outputs() const {
  check_alive(impl_);
  return impl_->outputs_;
}

const SessionOptions& Session::options() const {
  check_alive(impl_);
  return impl_->options_;
}

std::string Session::kernel_path() const {
  check_alive(impl_);
  return impl_->engine_->kernel_path();
}

void Session::dispose() {
  if (impl_) impl_->disposed_.store(true, std::memory_order_release);
}

namespace {

// Hands each result to the caller's tensors (Session::run).
class CopySink final : public OutputSink {
 public:
  CopySink(std::span<const std::string> names, std::span<Tensor> outputs, RunControl& control)
      : names_(names), outputs_(outputs), control_(control) {}
  void deliver(std::size_t index, const Tensor& result) override {
    deliver_output(result, outputs_[index], names_[index], control_);
  }

 private:
  std::span<const std::string> names_;
  std::span<Tensor> outputs_;
  RunControl& control_;
};

// Shows each result where it lies (Session::run_visit).
class VisitSink final : public OutputSink {
 public:
  VisitSink(const OutputVisitor& visit, std::span<const std::string> names, RunControl& control)
      : visit_(visit), names_(names), control_(control) {}
  void deliver(std::size_t index, const Tensor& result) override {
    // Engines leave contiguous results; should one not be, the caller still gets row-major bytes.
    if (result.is_contiguous()) {
      visit_(index, result);
      return;
    }
    control_.charge(result.dtype(), result.shape(), "output '" + names_[index] + "'");
    visit_(index, result.contiguous());
  }

 private:
  const OutputVisitor& visit_;
  std::span<const std::string> names_;
  RunControl& control_;
};

// spec/session.md section 4: every check happens before anything runs. Nothing here allocates
// for contiguous inputs, so a warm run can be allocation-free (graph-runtime.md section 4).
// check_input(k, i) checks given input i against accepted input k. `tensors_only`: the tensor
// API, which cannot return a sequence or an optional (spec/values.md section 4).
template <class CheckInput>
void check_names(const SessionImpl& impl, std::span<const std::string> input_names, std::size_t input_count,
                 std::span<const std::string> output_names, bool tensors_only, const CheckInput& check_input) {
  if (input_names.size() != input_count) {
    throw SessionError(SessionErrorKind::InvalidInput, "input names and tensors differ in number");
  }
  // O(k log n) in the names given and declared (issue 11, defect 5), allocation-free when warm.
  GivenMarks& marks = given_marks;
  if (marks.stamp.size() < impl.accepted_inputs_.size()) marks.stamp.resize(impl.accepted_inputs_.size(), 0);
  const std::uint64_t run = ++marks.run;
  std::size_t required_given = 0;
  for (std::size_t i = 0; i < input_names.size(); ++i) {
    const std::ptrdiff_t found = impl.accepted_index_.find(input_names[i]);
    if (found < 0) {
      throw SessionError(SessionErrorKind::InvalidInput, "the model has no input named '" + input_names[i] + "'");
    }
    const auto k = static_cast<std::size_t>(found);
    check_input(k, i);
    if (marks.stamp[k] == run) {
      throw SessionError(SessionErrorKind::InvalidInput, "input '" + input_names[i] + "' is given twice");
    }
    marks.stamp[k] = run;
    required_given += impl.required_[k];
  }
  if (required_given < impl.inputs_.size()) {
    for (const TensorInfo& info : impl.inputs_) {
      const std::ptrdiff_t k = impl.accepted_index_.find(info.name);
      if (k < 0 || marks.stamp[static_cast<std::size_t>(k)] != run) {
        throw SessionError(SessionErrorKind::InvalidInput, "input '" + info.name + "' is missing");
      }
    }
  }
  for (const std::string& name : output_names) {
    const std::ptrdiff_t k = impl.output_index_.find(name);
    if (k < 0) {
      throw SessionError(SessionErrorKind::InvalidInput, "the model has no output named '" + name + "'");
    }
    if (tensors_only && impl.outputs_[static_cast<std::size_t>(k)].kind != ValueKind::Tensor) {
      throw SessionError(SessionErrorKind::InvalidInput,
                         "output '" + name + "' is a sequence or an optional; ask for it through run_values");
    }
  }
}

void check_names(const SessionImpl& impl, std::span<const std::string> input_names, std::span<const Tensor> inputs,
                 std::span<const std::string> output_names) {
  check_names(impl, input_names, inputs.size(), output_names, true,
              [&](std::size_t k, std::size_t i) { check_input_against(impl.accepted_inputs_[k], inputs[i]); });
}

void run_engine(const SessionImpl& impl, std::span<const std::string> input_names, std::span<const Tensor> inputs,
                std::span<const std::string> output_names, OutputSink& sink, RunControl& control) {
  // spec/session.md section 8: a run cancelled or past its deadline before it starts runs nothing.
  control.check_stop();
  if (RunProfile* profile = control.profile()) profile->begin_run();
  bool all_contiguous = true;
  for (const Tensor& input : inputs) all_contiguous = all_contiguous && input.is_contiguous();
  if (all_contiguous) {
    impl.engine_->run(input_names, inputs, output_names, sink, control);
    return;
  }
  // Non-contiguous inputs are copied first (graph-runtime.md section 4), within the limit.
  std::vector<Tensor> copies;
  copies.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_contiguous()) {
      control.charge(inputs[i].dtype(), inputs[i].shape(), "a contiguous copy of input '" + input_names[i] + "'");
    }
    copies.push_back(inputs[i].contiguous());
  }
  impl.engine_->run(input_names, copies, output_names, sink, control);
}

}  // namespace

void Session::run(std::span<const std::string> input_names, std::span<const Tensor> inputs,
                  std::span<const std::string> output_names, std::span<Tensor> outputs,
                  const RunOptions& run_options) const {
  // Keeps the session alive for this run even if it is disposed meanwhile.
  std::shared_ptr<SessionImpl> impl = impl_;
  check_alive(impl);
  if (output_names.size() != outputs.size()) {
    throw SessionError(SessionErrorKind::InvalidInput, "output names and tensors differ in number");
  }
  check_names(*impl, input_names, inputs, output_names);
  for (std::size_t i = 0; i < output_names.size(); ++i) {
    if (outputs[i].defined()) {
      outputs[i].check_live();
      if (!outputs[i].is_contiguous()) {
        throw SessionError(SessionErrorKind::InvalidInput, "output '" + output_names[i] + "' is not contiguous");
      }
    }
  }
  // One control per run (spec/session.md sections 7 and 8).
  RunControl control(impl->options_.memory_limit_bytes, run_options);
  CopySink sink(output_names, outputs, control);
  run_engine(*impl, input_names, inputs, output_names, sink, control);
}

void Session::run_visit(std::span<const std::string> input_names, std::span<const Tensor> inputs,
                        std::span<const std::string> output_names, const OutputVisitor& visit,
                        const RunOptions& run_options) const {
  std::shared_ptr<SessionImpl> impl = impl_;
  check_alive(impl);
  check_names(*impl, input_names, inputs, output_names);
  RunControl control(impl->options_.memory_limit_bytes, run_options);
  VisitSink sink(visit, output_names, control);
  run_engine(*impl, input_names, inputs, output_names, sink, control);
}

void deliver_output(const Tensor& result, Tensor& out, const std::string& name, RunControl& control) {
  if (!out.defined()) {
    // Always a copy: a result may live in a run state's slab or arena, or be a plan constant.
    // spec/session.md section 7: the new tensor is within the run's memory limit.
    control.charge(result.dtype(), result.shape(), "output '" + name + "'");
    out = Tensor::empty(result.dtype(), result.shape());
    result.copy_elements_to(out);
    return;
  }
  if (out.dtype() != result.dtype() || !(out.shape() == result.shape()) || !out.is_contiguous()) {
    throw SessionError(SessionErrorKind::InvalidInput,
                       "output '" + name + "' was given as " + std::string(dtype_name(out.dtype())) + " " +
                           out.shape().to_string() + ", the result is " + std::string(dtype_name(result.dtype())) +
                           " " + result.shape().to_string());
  }
  result.copy_elements_to(out);
}

namespace {

// Hands each result to the caller's values (Session::run_values): a declared sequence or optional,
// or an undeclared output holding a packed form, is unpacked; a tensor is delivered as run()
// delivers it.
class ValueSink final : public OutputSink {
 public:
  ValueSink(const SessionImpl& impl, std::span<const std::string> names, std::span<Value> outputs, RunControl& control)
      : impl_(impl), names_(names), outputs_(outputs), control_(control) {}
  void deliver(std::size_t index, const Tensor& result) override {
    const std::string& name = names_[index];
    const TensorInfo& info = impl_.outputs_[static_cast<std::size_t>(impl_.output_index_.find(name))];
    const bool undeclared = info.kind == ValueKind::Tensor && info.element_type == 0 && !info.has_rank;
    if (info.kind == ValueKind::Sequence || info.kind == ValueKind::Optional ||
        (undeclared && is_packed_value(result))) {
      control_.charge(result.dtype(), result.shape(), "output '" + name + "'");
      outputs_[index] = unpack_value(result, "output '" + name + "'");
      return;
    }
    Tensor out = outputs_[index].kind() == Value::Kind::Tensor ? outputs_[index].tensor() : Tensor();
    deliver_output(result, out, name, control_);
    outputs_[index] = Value(std::move(out));
  }

 private:
  const SessionImpl& impl_;
  std::span<const std::string> names_;
  std::span<Value> outputs_;
  RunControl& control_;
};

}  // namespace

void Session::run_values(std::span<const std::string> input_names, std::span<const Value> inputs,
                         std::span<const std::string> output_names, std::span<Value> outputs,
                         const RunOptions& run_options) const {
  std::shared_ptr<SessionImpl> impl = impl_;
  check_alive(impl);
  if (output_names.size() != outputs.size()) {
    throw SessionError(SessionErrorKind::InvalidInput, "output names and values differ in number");
  }
  // Sequences and optionals go to the engine in their packed form (spec/values.md section 2).
  std::vector<Tensor> tensors(inputs.size());
  check_names(*impl, input_names, inputs.size(), output_names, false, [&](std::size_t k, std::size_t i) {
    tensors[i] = checked_input_value(impl->accepted_inputs_[k], inputs[i]).tensor();
  });
  for (std::size_t i = 0; i < output_names.size(); ++i) {
    if (outputs[i].kind() == Value::Kind::Tensor && outputs[i].defined()) {
      outputs[i].tensor().check_live();
      if (!outputs[i].tensor().is_contiguous()) {
        throw SessionError(SessionErrorKind::InvalidInput, "output '" + output_names[i] + "' is not contiguous");
      }
    }
  }
  RunControl control(impl->options_.memory_limit_bytes, run_options);
  ValueSink sink(*impl, output_names, outputs, control);
  run_engine(*impl, input_names, tensors, output_names, sink, control);
}

namespace {

// The convenience forms: every output in model order, by the span form `run_span`.
template <class V, class RunSpan>
std::vector<V> run_all_outputs(const Session& session, const std::vector<std::pair<std::string, V>>& inputs,
                               const RunSpan& run_span) {
  std::vector<std::string> names;
  std::vector<V> given;
  for (const auto& [name, value] : inputs) {
    names.push_back(name);
    given.push_back(value);
  }
  std::vector<std::string> output_names;
  for (const auto& info : session.outputs()) output_names.push_back(info.name);
  std::vector<V> results(output_names.size());
  run_span(names, given, output_names, results);
  return results;
}

}  // namespace

std::vector<Value> Session::run_values(const std::vector<std::pair<std::string, Value>>& inputs,
                                       const RunOptions& run_options) const {
  return run_all_outputs<Value>(*this, inputs, [&](const auto& names, const auto& given, const auto& outs, auto& results) {
    run_values(names, given, outs, results, run_options);
  });
}

std::vector<Tensor> Session::run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                                 const RunOptions& run_options) const {
  return run_all_outputs<Tensor>(*this, inputs, [&](const auto& names, const auto& given, const auto& outs, auto& results) {
    run(names, given, outs, results, run_options);
  });
}

}  // namespace onemodel
