#include "diff/op_fuzz_check.hpp"

#include <cstdlib>
#include <exception>

#include "diff/op_harness.hpp"
#include "onemodel/error.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"
#include "optimized/frame/isa.hpp"

namespace onemodel::diff {
namespace {

struct Outcome {
  bool ok = false;
  bool over_budget = false;  // stopped by the case's deadline: the case is set aside
  std::string error;  // "<type>(<kind>): message" when !ok
  std::vector<Tensor> outputs;
};

struct Untyped {
  std::string what;
};

// One session made and run; the typed errors of the library end the run as a refusal, anything
// else is reported through `untyped`.
// `path` is the kernel path the optimized engine must report (the ONEMODEL_ISA cap in force):
// a cap that did not reach the session would compare one path with itself.
Outcome run_once(const OpFuzzCase& c, EngineKind engine, ExecutionMode mode, int threads,
                 std::chrono::steady_clock::time_point deadline, std::string& untyped,
                 std::string_view path = "Reference") {
  Outcome outcome;
  // Making a session is bounded by the deadline too: a file of 800 nodes takes about 16 ms a
  // session under the sanitizers on Zen 4 (much more on a slow core), some thirty per case.
  if (std::chrono::steady_clock::now() >= deadline) {
    outcome.over_budget = true;
    return outcome;
  }
  try {
    SessionOptions options;
    options.mode = mode;
    options.engine = engine;
    options.intra_op_threads = threads;
    options.max_loop_iterations = 1000;  // a fuzzed loop that never ends stops quickly (spec/values.md 5)
    Session session = Session::create(c.model, options);
    if (session.kernel_path() != path) {
      untyped = "the session runs on " + session.kernel_path() + ", not on " + std::string(path);
      return outcome;
    }
    RunOptions run_options;
    run_options.deadline = deadline;
    outcome.outputs = session.run(c.feeds, run_options);
    outcome.ok = true;
  } catch (const SessionError& e) {
    outcome.over_budget = e.kind() == SessionErrorKind::Cancelled;
    outcome.error = std::string("SessionError(") + to_string(e.kind()) + "): " + e.message();
  } catch (const ModelError& e) {
    outcome.error = "ModelError: " + e.describe();
  } catch (const TensorError& e) {
    outcome.error = std::string("TensorError(") + to_string(e.kind()) + "): " + e.message();
  } catch (const std::exception& e) {
    untyped = std::string("an exception that is not one of the library's error types: ") + e.what();
  } catch (...) {
    untyped = "a non-standard exception";
  }
  return outcome;
}

std::string where(EngineKind engine, ExecutionMode mode, int threads, std::string_view isa) {
  return std::string(engine == EngineKind::Reference ? "reference" : "optimized") +
         (mode == ExecutionMode::Exact ? " exact" : " fast") + " at " + std::to_string(threads) + " thread(s)" +
         (engine == EngineKind::Optimized ? std::string(" on ") + std::string(isa) : std::string());
}

// Same element types and shapes (fast mode across engines).
std::string shape_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return "output counts differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() != b[i].defined()) return "output " + std::to_string(i) + " defined in one run only";
    if (!a[i].defined()) continue;
    if (a[i].dtype() != b[i].dtype()) return "output " + std::to_string(i) + ": element types differ";
    if (!(a[i].shape() == b[i].shape())) {
      return "output " + std::to_string(i) + ": " + a[i].shape().to_string() + " vs " + b[i].shape().to_string();
    }
  }
  return {};
}

class IsaCap {
 public:
  explicit IsaCap(opt::Isa isa) { setenv("ONEMODEL_ISA", std::string(opt::isa_name(isa)).c_str(), 1); }
  ~IsaCap() { unsetenv("ONEMODEL_ISA"); }
  IsaCap(const IsaCap&) = delete;
  IsaCap& operator=(const IsaCap&) = delete;
};

// The case's deadline: its start plus `budget`, or none when the sum would pass what a time point
// holds (the default budget is the duration's maximum).
std::chrono::steady_clock::time_point case_deadline(std::chrono::steady_clock::duration budget) {
  const auto now = std::chrono::steady_clock::now();
  if (budget >= std::chrono::steady_clock::time_point::max() - now) return std::chrono::steady_clock::time_point::max();
  return now + budget;
}

}  // namespace

std::string check_op_case(const OpFuzzCase& c, OpFuzzStats* stats, std::chrono::steady_clock::duration budget) {
  if (!c.model_error.empty()) return {};  // resolution refused the graph: a typed ModelError
  const std::string about = "\ncase: " + c.description;
  const auto deadline = case_deadline(budget);
  // Every run's outcome passes here first: a run the deadline stopped sets the case aside.
  auto set_aside = [&](const Outcome& outcome) {
    if (outcome.over_budget && stats != nullptr) stats->over_budget = true;
    return outcome.over_budget;
  };
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    std::string untyped;
    const Outcome first = run_once(c, EngineKind::Reference, mode, 1, deadline, untyped);
    const std::string first_where = where(EngineKind::Reference, mode, 1, "");
    if (!untyped.empty()) return first_where + ": " + untyped + about;
    if (set_aside(first)) return {};
    if (stats != nullptr) {
      (mode == ExecutionMode::Exact ? stats->exact_ran : stats->fast_ran) = first.ok;
      (mode == ExecutionMode::Exact ? stats->exact_error : stats->fast_error) = first.error;
    }
    auto compare = [&](const Outcome& other, const std::string& other_where, bool bits) -> std::string {
      if (first.ok != other.ok) {
        return "one run failed and the other did not\n" + first_where + ": " + (first.ok ? "ok" : first.error) +
               "\n" + other_where + ": " + (other.ok ? "ok" : other.error) + about;
      }
      if (!first.ok) return {};
      const std::string difference =
          bits ? first_difference(first.outputs, other.outputs) : shape_difference(first.outputs, other.outputs);
      if (!difference.empty()) return first_where + " vs " + other_where + ": " + difference + about;
      return {};
    };
    const bool exact = mode == ExecutionMode::Exact;
    for (int threads : {2, 4}) {
      const Outcome again = run_once(c, EngineKind::Reference, mode, threads, deadline, untyped);
      const std::string again_where = where(EngineKind::Reference, mode, threads, "");
      if (!untyped.empty()) return again_where + ": " + untyped + about;
      if (set_aside(again)) return {};
      if (std::string f = compare(again, again_where, true); !f.empty()) return f;
    }
    for (opt::Isa isa : opt::available_isas()) {
      const IsaCap cap(isa);
      Outcome one;
      std::string one_where;
      for (int threads : {1, 2, 4}) {
        const std::string here = where(EngineKind::Optimized, mode, threads, opt::isa_name(isa));
        const Outcome run =
            run_once(c, EngineKind::Optimized, mode, threads, deadline, untyped, opt::isa_path_name(isa));
        if (!untyped.empty()) return here + ": " + untyped + about;
        if (set_aside(run)) return {};
        if (std::string f = compare(run, here, exact); !f.empty()) return f;
        if (threads == 1) {
          one = run;
          one_where = here;
        } else if (!exact && one.ok && run.ok) {
          // Fast mode: the thread count changes speed only.
          const std::string difference = first_difference(one.outputs, run.outputs);
          if (!difference.empty()) return one_where + " vs " + here + ": " + difference + about;
        }
      }
    }
  }
  return {};
}

}  // namespace onemodel::diff
