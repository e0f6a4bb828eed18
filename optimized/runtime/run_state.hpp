// What one run writes (graph-runtime.md sections 1 and 5): the value table, the slab holding every
// static intermediate at the plan's offsets, the arena for dynamic values and scratch, and the
// per-step operand lists, all made once so a warm run allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "core/session/run_control.hpp"
#include "onemodel/arena.hpp"
#include "optimized/runtime/plan.hpp"

namespace onemodel::opt {

class RunState final : public RunMemory {
 public:
  explicit RunState(const Plan& plan);

  // Dynamic values and scratch, from the arena, each charged to the run first (spec/session.md
  // section 7).
  Tensor allocate(DType type, const Shape& shape) override;
  RunControl* run_control() noexcept override { return control_; }

  // Runs every step of the plan, charging what it allocates to `control`; the caller has set the
  // input values.
  void run_steps(const Plan& plan, RunControl& control);

  std::vector<Tensor>& values() noexcept { return values_; }
  void reset_arena() { arena_.reset(); }

 private:
  void run_step(const Plan& plan, std::size_t s);
  void run_dynamic(const PlanStep& step, const CompiledGraph& graph);
  void poison(const PlanStep& step) noexcept;

  RunControl* control_ = nullptr;  // the run in progress
  std::shared_ptr<Buffer> slab_;
  Arena arena_;
  std::vector<Tensor> values_;
  std::vector<std::vector<Tensor>> step_inputs_;
  std::vector<std::vector<Tensor>> step_outputs_;
};

}  // namespace onemodel::opt
