// What a session runs: an engine made once from the model, shared by concurrent runs.
// Internal (spec/session.md section 1).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <unordered_map>

#include "core/session/run_control.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

// Where an engine hands its results, once every node has run: deliver(i, result) once for each
// output_names[i], in order. `result` may lie in the run's own memory (a slab, an arena): the sink
// copies what it keeps.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual void deliver(std::size_t index, const Tensor& result) = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // inputs[i] is the value of input_names[i], already validated against the model's declarations
  // and contiguous; names are distinct. Every allocation of the run is charged to `control`
  // before it is made (spec/session.md section 7). Thread-safe.
  virtual void run(std::span<const std::string> input_names, std::span<const Tensor> inputs,
                   std::span<const std::string> output_names, OutputSink& sink, RunControl& control) const = 0;
  virtual std::string kernel_path() const = 0;
};

// Hands one result to the caller: a new tensor when `out` is undefined (charged to `control`
// first), else a copy into `out` after checking its element type, shape and contiguity
// (SessionError(InvalidInput) naming it).
void deliver_output(const Tensor& result, Tensor& out, const std::string& name, RunControl& control);

// What the engine of a subgraph body inherits from the engine of the graph holding it
// (spec/values.md section 3).
struct EngineParent {
  int depth = 0;                      // how deep the graph is nested: 0 for the main graph
  std::shared_ptr<void> thread_pool;  // the optimized engine's pool (opt::ThreadPool), shared by its bodies
};

// reference/engine: topological order, a fresh buffer per value, no passes, one thread.
std::unique_ptr<Engine> make_reference_engine(const IrModel& model, const SessionOptions& options,
                                              const EngineParent& parent = {});

// optimized/runtime: plans, slab memory, run-state pools, threads, the optimized kernels.
std::unique_ptr<Engine> make_optimized_engine(const IrModel& model, const SessionOptions& options,
                                              const EngineParent& parent = {});

}  // namespace onemodel
