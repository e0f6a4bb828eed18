// The reference engine (spec/session.md section 2): walks the nodes in dependency order, gives
// every value a fresh buffer, runs each node's reference kernel on one thread. No plans, no
// passes, no reuse: it is the definition the optimized engine is checked against.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "core/session/body_compiler.hpp"
#include "core/session/engine.hpp"
#include "onemodel/run_profile.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"
#include "reference/engine/operator_check.hpp"

namespace onemodel {
namespace {

using ValueTable = std::unordered_map<std::string, Tensor>;

// A node's data-dependent outputs and scratch: fresh tensors, each charged to the run first
// (spec/session.md section 7).
class ChargedMemory final : public RunMemory {
 public:
  ChargedMemory(RunControl& control, const std::string& what) : control_(control), what_(what) {}
  Tensor allocate(DType type, const Shape& shape) override {
    control_.charge(type, shape, what_);
    return Tensor::empty(type, shape);
  }
  RunControl* run_control() noexcept override { return &control_; }

 private:
  RunControl& control_;
  const std::string& what_;
};

class ReferenceEngine final : public Engine {
 public:
  ReferenceEngine(const IrModel& model, const SessionOptions& options, const EngineParent& parent)
      : graph_(model.graph),
        mode_(options.mode),
        subgraphs_(make_body_compiler(model, options, parent,
                                      [](const IrModel& m, const SessionOptions& o, const EngineParent& p) {
                                        return make_reference_engine(m, o, p);
                                      })),
        kernels_(make_kernels(graph_, options, subgraphs_.get())) {
    for (const IrTensor& initializer : graph_.initializers) {
      // "" marks an omitted operand and names no value (graph-resolution.md section 1): refused
      // here too for in-memory models that skipped resolution (issue 11, defect 1).
      if (initializer.name.empty()) {
        throw SessionError(SessionErrorKind::InvalidModel, "an initializer has an empty name");
      }
      constants_.emplace(initializer.name, tensor_from_ir(initializer, "initializer '" + initializer.name + "'"));
    }
    if (!graph_.sparse_initializers.empty()) {
      throw SessionError(SessionErrorKind::Unsupported, "sparse initializers are not supported yet");
    }
    mark_caller_values();
    mark_live_nodes();
  }

  void run(std::span<const std::string> input_names, std::span<const Tensor> inputs,
           std::span<const std::string> output_names, OutputSink& sink, RunControl& control) const override {
    ValueTable values;
    for (const auto& [name, tensor] : constants_) values.emplace(name, tensor);
    // A caller's input overrides an initializer of the same name (an input with a default).
    for (std::size_t i = 0; i < inputs.size(); ++i) values.insert_or_assign(input_names[i], inputs[i]);
    // spec/session.md section 8: checked before every node and after the last. A run profile
    // (issue 15) costs one pointer test per node when there is none.
    RunProfile* const profile = control.profile();
    for (std::int32_t index : graph_.order) {
      if (!live_[static_cast<std::size_t>(index)]) continue;
      control.check_stop();
      if (profile == nullptr) {
        run_node(static_cast<std::size_t>(index), values, control);
        continue;
      }
      const IrNode& node = graph_.nodes[static_cast<std::size_t>(index)];
      const std::uint32_t slot = profile->node(&node, [&] {
        return ProfiledNode{node.name, node.op_type, node.op_type, NodeKernelKind::Reference, "reference"};
      });
      const RunProfile::Clock::time_point start = RunProfile::Clock::now();
      run_node(static_cast<std::size_t>(index), values, control);
      profile->record(slot, start, RunProfile::Clock::now(), false);
    }
    control.check_stop();
    for (std::size_t i = 0; i < output_names.size(); ++i) {
      auto it = values.find(output_names[i]);
      if (it == values.end()) {
        throw SessionError(SessionErrorKind::InvalidInput, "no value named '" + output_names[i] + "'");
      }
      sink.deliver(i, it->second);
    }
  }

  std::string kernel_path() const override { return "Reference"; }

 private:
  void run_node(std::size_t index, ValueTable& values, RunControl& control) const {
    const IrNode& node = graph_.nodes[index];
    const OpKernel& kernel = *kernels_[index];
    NodeInfo info(node, node.opset, mode_);
    const std::string what = "a value of " + node.op_type;
    ChargedMemory memory(control, what);
    try {
      std::vector<Tensor> inputs(node.inputs.size());
      std::vector<InferInput> described(node.inputs.size());
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i].empty()) continue;
        auto it = values.find(node.inputs[i]);
        if (it == values.end()) {
          throw SessionError(SessionErrorKind::InvalidModel, "input '" + node.inputs[i] + "' has no value");
        }
        inputs[i] = it->second;
        described[i] = InferInput{true, inputs[i].dtype(), inputs[i].shape(), &inputs[i]};
      }
      std::vector<Tensor> outputs(node.outputs.size());
      if (!kernel.outputs_data_dependent) {
        std::vector<InferOutput> stated(node.outputs.size());
        for (std::size_t i = 0; i < node.outputs.size(); ++i) stated[i].wanted = !node.outputs[i].empty();
        InferContext infer(info, described, stated, from_caller_[index]);
        infer_node(kernel, infer);
        bool all_constant = true;
        for (std::size_t i = 0; i < stated.size(); ++i) {
          if (!stated[i].wanted) continue;
          if (!stated[i].set) {
            throw SessionError(SessionErrorKind::InvalidModel,
                               node.op_type + ": output " + std::to_string(i) + " was not stated by the kernel");
          }
          if (stated[i].constant) {
            outputs[i] = stated[i].value;
          } else {
            all_constant = false;
            outputs[i] = memory.allocate(stated[i].type, stated[i].shape);
          }
        }
        if (!all_constant) {
          RunContext context(info, inputs, outputs, &memory);
          kernel.run(context);
        }
      } else {
        check_string_inputs(kernel, info, inputs);
        RunContext context(info, inputs, outputs, &memory);
        kernel.run(context);
      }
      for (std::size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty()) continue;
        if (!outputs[i].defined()) {
          throw SessionError(SessionErrorKind::InvalidModel,
                             node.op_type + ": output " + std::to_string(i) + " was not produced");
        }
        values.insert_or_assign(node.outputs[i], std::move(outputs[i]));
      }
    } catch (const SessionError& e) {
      if (!e.node_name().empty()) throw;
      throw SessionError(e.kind(), e.message(), info.name(), e.operators());
    } catch (const TensorError& e) {
      // A shape or size limit met while running (spec/tensors.md section 3): the case is valid
      // ONNX but beyond this library.
      throw SessionError(SessionErrorKind::Unsupported, node.op_type + ": " + e.message(), info.name());
    }
  }

  // spec/errors.md section 3.2: for each node input, 1 when its value derives from a graph input
  // (an input, or an output of a node reading one), in execution order.
  void mark_caller_values() {
    std::unordered_set<std::string> derived;
    for (const IrValueInfo& input : graph_.inputs) derived.insert(input.name);
    from_caller_.resize(graph_.nodes.size());
    for (std::int32_t index : graph_.order) {
      const IrNode& node = graph_.nodes[static_cast<std::size_t>(index)];
      std::vector<std::uint8_t>& marks = from_caller_[static_cast<std::size_t>(index)];
      marks.assign(node.inputs.size(), 0);
      bool any = false;
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        if (!node.inputs[i].empty() && derived.count(node.inputs[i]) != 0) marks[i] = 1;
        any = any || marks[i] != 0;
      }
      if (!any) continue;
      for (const std::string& output : node.outputs) {
        if (!output.empty()) derived.insert(output);
      }
    }
  }

  // graph-runtime.md section 3 step 3: a node with no path to a graph output is dropped when the
  // session is made, in this engine as in the optimized one (optimized/runtime/compiled_graph.cpp),
  // so a refusal in a node that cannot change an output is no refusal in either engine. Kernels
  // are still made for every node (an unknown operator anywhere is refused at load by both).
  void mark_live_nodes() {
    std::unordered_set<std::string> needed;
    for (const IrValueInfo& output : graph_.outputs) needed.insert(output.name);
    live_.assign(graph_.nodes.size(), false);
    for (auto it = graph_.order.rbegin(); it != graph_.order.rend(); ++it) {
      const IrNode& node = graph_.nodes[static_cast<std::size_t>(*it)];
      bool used = false;
      for (const std::string& output : node.outputs) used = used || (!output.empty() && needed.count(output) != 0);
      if (!used) continue;
      live_[static_cast<std::size_t>(*it)] = true;
      for (const std::string& input : node.inputs) {
        if (!input.empty()) needed.insert(input);
      }
    }
  }

  const IrGraph& graph_;
  ExecutionMode mode_;
  std::unique_ptr<SubgraphCompiler> subgraphs_;  // before kernels_: their factories use it
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  std::unordered_map<std::string, Tensor> constants_;
  std::vector<std::vector<std::uint8_t>> from_caller_;  // by node index, then input position
  std::vector<bool> live_;                                // by node index
};

}  // namespace

std::unique_ptr<Engine> make_reference_engine(const IrModel& model, const SessionOptions& options,
                                              const EngineParent& parent) {
  return std::make_unique<ReferenceEngine>(model, options, parent);
}

}  // namespace onemodel
