// An execution plan: one per list of input element types and shapes (graph-runtime.md section 3).
// Immutable once made and shared by every concurrent run; the run states it hands out hold
// everything a run writes.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::opt {

class RunState;

enum class ValueKind : std::uint8_t {
  Unused,    // not read by any scheduled step nor an output
  Input,     // the caller's tensor
  Constant,  // a tensor the plan owns (initializer or evaluated at plan time)
  Slab,      // static shape, at `offset` in the run state's slab
  View,      // the source value reinterpreted with this shape (made each run, without a copy)
  Dynamic,   // shaped in each run, from the run state's arena
};

struct PlanValue {
  ValueKind kind = ValueKind::Unused;
  DType type = DType::F32;
  Shape shape;
  Tensor constant;           // Constant
  std::int64_t offset = -1;  // Slab
  std::int64_t bytes = 0;    // Slab
  int view_source = -1;      // View
  // Slab values a Concat reads in place (section 4 rule 5): the value whose block holds this one,
  // and this value's byte offset inside it; -1 when the value has a block of its own.
  int slice_of = -1;
  std::int64_t slice_offset = 0;
};

struct PlanStep {
  const CompiledNode* node = nullptr;
  bool dynamic = false;  // shaped again in every run (section 3 step 4)
  bool view = false;     // output 0 is input 0 reinterpreted: no kernel call
  std::shared_ptr<const void> prepared;  // what the kernel's prepare() returned
  // Slab blocks whose last value dies at this step (Checked builds poison them afterwards).
  std::vector<std::pair<std::int64_t, std::int64_t>> freed;
  // A Concat whose inputs were written straight into their slices of its output (section 4
  // rule 5): no kernel call.
  bool concat_in_place = false;
};

// What a plan is keyed by: per graph input, whether the caller gave it and its type and shape.
struct InputSignature {
  bool given = false;
  DType type = DType::F32;
  Shape shape;
};

class Plan {
 public:
  static constexpr std::int64_t kMaxSlabBytes = std::int64_t{2} << 30;  // section 5: 2 GiB
  static constexpr std::int64_t kFoldLimitBytes = 64 * 1024;            // section 3 step 2
  static constexpr std::size_t kMaxIdleStates = 8;                     // section 4

  // `inputs[i]` is the tensor for graph input i, or undefined when the caller gave none (its
  // initializer default is used). Throws SessionError.
  Plan(const CompiledGraph& graph, const std::vector<Tensor>& inputs);
  ~Plan();

  // Whether this plan serves these inputs (same order as the constructor's). Allocates nothing.
  template <typename InputAt>
  bool matches(InputAt&& input_at) const noexcept {
    for (std::size_t i = 0; i < signature_.size(); ++i) {
      const Tensor* t = input_at(i);
      const bool given = t != nullptr && t->defined();
      if (given != signature_[i].given) return false;
      if (given && (t->dtype() != signature_[i].type || !(t->shape() == signature_[i].shape))) return false;
    }
    return true;
  }

  const CompiledGraph& graph() const noexcept { return graph_; }
  const std::vector<PlanValue>& values() const noexcept { return values_; }
  const std::vector<PlanStep>& steps() const noexcept { return steps_; }
  std::int64_t slab_bytes() const noexcept { return slab_bytes_; }

  // Run states: taken for one run and given back (at most kMaxIdleStates kept idle).
  std::unique_ptr<RunState> take_state() const;
  void give_back(std::unique_ptr<RunState> state) const;

 private:
  void shape_nodes(const std::vector<Tensor>& inputs);
  void place_values();
  void slice_concat_inputs();

  const CompiledGraph& graph_;
  std::vector<InputSignature> signature_;
  std::vector<PlanValue> values_;
  std::vector<PlanStep> steps_;
  std::int64_t slab_bytes_ = 0;
  mutable std::mutex idle_mutex_;
  mutable std::vector<std::unique_ptr<RunState>> idle_;
};

}  // namespace onemodel::opt
