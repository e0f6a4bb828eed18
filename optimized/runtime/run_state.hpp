// What one run writes (graph-runtime.md sections 1 and 5): the value table, the slab holding every
// static intermediate at the plan's offsets, the arena for dynamic values and scratch, and the
// per-step operand lists, all made once so a warm run allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "onemodel/arena.hpp"
#include "optimized/runtime/plan.hpp"

namespace onemodel::opt {

class RunState final : public RunMemory {
 public:
  explicit RunState(const Plan& plan);

  Tensor allocate(DType type, const Shape& shape) override { return arena_.allocate(type, shape); }

  // Runs every step of the plan; the caller has set the input values.
  void run_steps(const Plan& plan);

  std::vector<Tensor>& values() noexcept { return values_; }
  void reset_arena() { arena_.reset(); }

 private:
  void run_dynamic(const PlanStep& step);
  void poison(const PlanStep& step) noexcept;

  std::shared_ptr<Buffer> slab_;
  Arena arena_;
  std::vector<Tensor> values_;
  std::vector<std::vector<Tensor>> step_inputs_;
  std::vector<std::vector<Tensor>> step_outputs_;
};

}  // namespace onemodel::opt
