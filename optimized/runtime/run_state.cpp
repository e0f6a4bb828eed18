#include "optimized/runtime/run_state.hpp"

#include <cstring>

#include "onemodel/run_profile.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/runtime/node_profile.hpp"
#include "optimized/runtime/node_errors.hpp"

namespace onemodel::opt {
RunState::RunState(const Plan& plan) {
  const std::vector<PlanValue>& values = plan.values();
  values_.resize(values.size());
  if (plan.slab_bytes() > 0) slab_ = BufferPool::shared().rent(static_cast<std::size_t>(plan.slab_bytes()));
  for (std::size_t id = 0; id < values.size(); ++id) {
    const PlanValue& value = values[id];
    if (value.kind == ValueKind::Constant) values_[id] = value.constant;
    if (value.kind == ValueKind::Slab) {
      values_[id] = Tensor::over(slab_, static_cast<std::size_t>(value.offset), static_cast<std::size_t>(value.bytes),
                                 value.type, value.shape);
    }
  }
  const std::vector<PlanStep>& steps = plan.steps();
  step_inputs_.resize(steps.size());
  step_outputs_.resize(steps.size());
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const CompiledNode& node = *steps[s].node;
    step_inputs_[s].resize(node.inputs.size());
    step_outputs_[s].resize(node.outputs.size());
    if (steps[s].dynamic || steps[s].view) continue;
    for (std::size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] >= 0) step_outputs_[s][o] = values_[static_cast<std::size_t>(node.outputs[o])];
    }
  }
}

Tensor RunState::allocate(DType type, const Shape& shape) {
  control_->charge(type, shape, "a value or scratch shaped while running");
  return arena_.allocate(type, shape);
}

void RunState::run_steps(const Plan& plan, RunControl& control) {
  control_ = &control;
  // The state outlives the run (the plan keeps it idle): it must not keep the run's control.
  struct Forget {
    RunControl*& control;
    ~Forget() { control = nullptr; }
  } forget{control_};
  const std::vector<PlanStep>& steps = plan.steps();
  // spec/session.md section 8: checked before every step and after the last, which also catches
  // a kernel whose chunks the pool skipped once the run was to stop (stop_scope.hpp).
  // A run profile (issue 15) costs this one pointer test per step when there is none.
  RunProfile* const profile = control.profile();
  for (std::size_t s = 0; s < steps.size(); ++s) {
    control.check_stop();
    if (profile == nullptr) {
      run_step(plan, s);
      continue;
    }
    const CompiledNode& node = *steps[s].node;
    const std::uint32_t index = profile->node(&node, [&] {
      ProfiledNode described = describe_node(node, plan.graph().isa);
      // spec/optimized-engine.md section 4 rule 5: no kernel runs, the producers wrote the output.
      if (steps[s].concat_in_place) described.kernel_path = "in place";
      return described;
    });
    const std::uint64_t fallbacks = OptimizedKernel::fallbacks_on_this_thread();
    const RunProfile::Clock::time_point start = RunProfile::Clock::now();
    run_step(plan, s);
    const RunProfile::Clock::time_point end = RunProfile::Clock::now();
    profile->record(index, start, end, OptimizedKernel::fallbacks_on_this_thread() != fallbacks);
  }
  control.check_stop();
}

void RunState::run_step(const Plan& plan, std::size_t s) {
  const PlanStep& step = plan.steps()[s];
  const CompiledNode& node = *step.node;
  if (step.view) {
    const int out = node.outputs[0];
    const Tensor& source = values_[static_cast<std::size_t>(node.inputs[0])];
    with_node(node, [&] {
      std::optional<Tensor> view = source.try_reshape(plan.values()[static_cast<std::size_t>(out)].shape);
      if (!view) throw SessionError(SessionErrorKind::InvalidModel, "a view of a non-contiguous value");
      values_[static_cast<std::size_t>(out)] = std::move(*view);
    });
    return;
  }
  if (step.dynamic) {
    run_dynamic(step, plan.graph());
    return;
  }
  if (step.concat_in_place) {
    // spec/optimized-engine.md section 4 rule 5: the inputs' producers wrote the output.
    poison(step);
    return;
  }
  std::vector<Tensor>& in = step_inputs_[s];
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const int id = node.inputs[i];
    if (id >= 0) in[i] = values_[static_cast<std::size_t>(id)];
  }
  with_node(node, [&] {
    RunContext context(node.info, in, step_outputs_[s], this, step.prepared.get());
    node.kernel->run(context);
  });
  poison(step);
}

void RunState::run_dynamic(const PlanStep& step, const CompiledGraph& graph) {
  // Section 3 step 4: shaped again from the actual tensors; outputs from the arena.
  const CompiledNode& node = *step.node;
  const OpKernel& kernel = *node.kernel;
  std::vector<Tensor> in(node.inputs.size());
  std::vector<InferInput> described(node.inputs.size());
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const int id = node.inputs[i];
    if (id < 0) continue;
    in[i] = values_[static_cast<std::size_t>(id)];
    described[i] = InferInput{true, in[i].dtype(), in[i].shape(), &in[i]};
    described[i].compact = graph.is_compact(id);
  }
  std::vector<Tensor> out(node.outputs.size());
  with_node(node, [&] {
    std::shared_ptr<const void> prepared;
    if (!kernel.outputs_data_dependent) {
      std::vector<InferOutput> stated(node.outputs.size());
      for (std::size_t i = 0; i < stated.size(); ++i) stated[i].wanted = node.outputs[i] >= 0;
      InferContext infer(node.info, described, stated, node.input_from_caller);
      infer_node(kernel, infer);
      bool all_constant = true;
      for (std::size_t i = 0; i < stated.size(); ++i) {
        if (!stated[i].wanted) continue;
        if (!stated[i].set) {
          throw SessionError(SessionErrorKind::InvalidModel,
                             node.ir->op_type + ": output " + std::to_string(i) + " was not stated by the kernel");
        }
        if (stated[i].constant) {
          out[i] = stated[i].value;
        } else {
          all_constant = false;
          out[i] = allocate(stated[i].type, stated[i].shape);
        }
      }
      if (all_constant) return;
      prepared = kernel.prepare(infer);
    } else {
      check_string_inputs(kernel, node.info, in);
    }
    RunContext context(node.info, in, out, this, prepared.get());
    kernel.run(context);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] >= 0 && !out[i].defined()) {
        throw SessionError(SessionErrorKind::InvalidModel,
                           node.ir->op_type + ": output " + std::to_string(i) + " was not produced");
      }
    }
  });
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] >= 0) values_[static_cast<std::size_t>(node.outputs[i])] = out[i];
  }
}

void RunState::poison(const PlanStep& step) noexcept {
#if defined(ONEMODEL_CHECKED)
  // Section 5: a stale read of a dead value shows up as garbage in the tests.
  for (const auto& [offset, bytes] : step.freed) {
    std::memset(slab_->data() + offset, 0xFF, static_cast<std::size_t>(bytes));
  }
#else
  (void)step;
#endif
}

}  // namespace onemodel::opt
