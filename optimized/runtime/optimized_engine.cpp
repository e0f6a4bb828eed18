// The optimized engine (graph-runtime.md sections 3 to 5): a compiled graph, a cache of plans per
// input signature read without locks, run states taken from the plan's pool, and the session's
// thread pool and kernel path.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/session/body_compiler.hpp"
#include "core/session/engine.hpp"
#include "core/session/name_index.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/stop_scope.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/plan.hpp"
#include "optimized/runtime/run_state.hpp"
#include "optimized/runtime/weight_packs.hpp"

namespace onemodel {
namespace {

using opt::Plan;
using PlanList = std::vector<std::shared_ptr<const Plan>>;

int thread_count(const SessionOptions& options) {
  if (options.intra_op_threads > 0) return options.intra_op_threads;
  const unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hardware, 1u, 256u));
}

class OptimizedEngine final : public Engine {
 public:
  OptimizedEngine(const IrModel& model, const SessionOptions& options, const EngineParent& parent)
      : isa_(opt::select_isa()),
        // A body's engine runs on the thread pool of the engine holding it (spec/values.md
        // section 3): one pool per session, however many bodies.
        pool_(parent.thread_pool != nullptr
                  ? std::static_pointer_cast<opt::ThreadPool>(parent.thread_pool)
                  : std::make_shared<opt::ThreadPool>(thread_count(options), opt::ThreadPool::session_sharing())),
        subgraphs_(make_body_compiler(model, options, EngineParent{parent.depth, pool_},
                                      [](const IrModel& m, const SessionOptions& o, const EngineParent& p) {
                                        return make_optimized_engine(m, o, p);
                                      })),
        packs_(std::make_unique<opt::WeightPacks>()),
        graph_(opt::compile_graph(model, options, opt::OptimizedConfig{isa_, pool_.get(), packs_.get()},
                                  subgraphs_.get())),
        max_plans_(static_cast<std::size_t>(std::max(1, options.max_cached_plans))),
        plans_(std::make_shared<const PlanList>()) {
    std::vector<std::string> outputs;
    outputs.reserve(graph_->output_ids.size());
    for (int id : graph_->output_ids) outputs.push_back(graph_->value_names[static_cast<std::size_t>(id)]);
    output_index_ = NameIndex(outputs);
  }

  void run(std::span<const std::string> input_names, std::span<const Tensor> inputs,
           std::span<const std::string> output_names, OutputSink& sink, RunControl& control) const override {
    // The search for input i starts after the last match and wraps: O(1) a lookup when the
    // caller gives the inputs in declaration order (the usual case), allocation-free always
    // (issue 11, defect 5).
    std::size_t next = 0;
    const auto input_at = [&](std::size_t i) -> const Tensor* {
      const std::string& name = graph_->value_names[static_cast<std::size_t>(graph_->input_ids[i])];
      const std::size_t n = input_names.size();
      for (std::size_t step = 0; step < n; ++step) {
        const std::size_t j = next + step < n ? next + step : next + step - n;
        if (input_names[j] == name) {
          next = j + 1 < n ? j + 1 : 0;
          return &inputs[j];
        }
      }
      return nullptr;
    };
    std::shared_ptr<const Plan> plan = find_plan(input_at);
    if (!plan) plan = build_plan(input_at);
    // spec/session.md section 7: the plan's intermediate values count first, before a run state
    // (and its slab) is made.
    control.charge(plan->slab_bytes(), "the plan's intermediate values");

    // The run state goes back to the plan's pool however the run ends (an error, a cancelled
    // run: spec/session.md section 8), without the caller's inputs: they are never kept
    // (graph-runtime.md section 4).
    struct StateLease {
      const Plan& plan;
      std::unique_ptr<opt::RunState> state;
      ~StateLease() {
        if (!state) return;
        for (int id : plan.graph().input_ids) {
          if (plan.values()[static_cast<std::size_t>(id)].kind == opt::ValueKind::Input) {
            state->values()[static_cast<std::size_t>(id)] = Tensor();
          }
        }
        plan.give_back(std::move(state));
      }
    } lease{*plan, plan->take_state()};
    opt::RunState& state = *lease.state;
    state.reset_arena();
    std::vector<Tensor>& values = state.values();
    for (std::size_t i = 0; i < graph_->input_ids.size(); ++i) {
      const Tensor* given = input_at(i);
      if (given != nullptr) values[static_cast<std::size_t>(graph_->input_ids[i])] = *given;
    }
    // The pool's chunks poll the run's stop test (spec/session.md section 8).
    const auto stop = [&control] { return control.stop_requested(); };
    const opt::FunctionRef<bool()> stop_ref(stop);
    const opt::StopScope stop_scope(stop_ref);
    state.run_steps(*plan, control);
    for (std::size_t i = 0; i < output_names.size(); ++i) {
      const int id = output_id(output_names[i]);
      if (id < 0 || !values[static_cast<std::size_t>(id)].defined()) {
        throw SessionError(SessionErrorKind::InvalidInput, "no value named '" + output_names[i] + "'");
      }
      sink.deliver(i, values[static_cast<std::size_t>(id)]);
    }
  }

  std::string kernel_path() const override { return std::string(opt::isa_path_name(isa_)); }

 private:
  int output_id(const std::string& name) const {
    const std::ptrdiff_t k = output_index_.find(name);
    return k < 0 ? -1 : graph_->output_ids[static_cast<std::size_t>(k)];
  }

  template <typename InputAt>
  std::shared_ptr<const Plan> find_plan(const InputAt& input_at) const {
    // Section 4: the cache is a copy-on-write list read without locks.
    const std::shared_ptr<const PlanList> plans = std::atomic_load_explicit(&plans_, std::memory_order_acquire);
    for (const auto& plan : *plans) {
      if (plan->matches(input_at)) return plan;
    }
    return nullptr;
  }

  template <typename InputAt>
  std::shared_ptr<const Plan> build_plan(const InputAt& input_at) const {
    std::lock_guard<std::mutex> lock(build_mutex_);
    if (auto plan = find_plan(input_at)) return plan;  // another run made it meanwhile
    std::vector<Tensor> given(graph_->input_ids.size());
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (const Tensor* t = input_at(i)) given[i] = *t;
    }
    auto plan = std::make_shared<const Plan>(*graph_, given);
    // Oldest dropped first; runs holding an evicted plan keep it alive (reference counts).
    auto next = std::make_shared<PlanList>(*std::atomic_load_explicit(&plans_, std::memory_order_acquire));
    if (next->size() >= max_plans_) next->erase(next->begin());
    next->push_back(plan);
    std::atomic_store_explicit(&plans_, std::shared_ptr<const PlanList>(std::move(next)), std::memory_order_release);
    return plan;
  }

  opt::Isa isa_;
  std::shared_ptr<opt::ThreadPool> pool_;  // before graph_: kernels hold a pointer to it
  std::unique_ptr<SubgraphCompiler> subgraphs_;  // before graph_: the kernel factories use it
  std::unique_ptr<opt::WeightPacks> packs_;        // before graph_: passes and plans share packs in it
  std::unique_ptr<opt::CompiledGraph> graph_;
  std::size_t max_plans_;
  mutable std::shared_ptr<const PlanList> plans_;
  NameIndex output_index_;  // over the graph outputs, in output_ids order
  mutable std::mutex build_mutex_;
};

}  // namespace

std::unique_ptr<Engine> make_optimized_engine(const IrModel& model, const SessionOptions& options,
                                              const EngineParent& parent) {
  return std::make_unique<OptimizedEngine>(model, options, parent);
}

}  // namespace onemodel
