// The plan the optimized engine would make for a model, for tests that inspect value offsets
// (optimized_runtime_test, binary_in_place_test): the graph as imported (OptimizationLevel::None:
// the passes, which would fuse element-wise test graphs into one node, are tested in
// graph_passes_test.cpp), exact mode, the scalar path, a one-thread pool.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/session.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/plan.hpp"

namespace onemodel::test {

struct PlanFixture {
  IrModel model;
  std::unique_ptr<opt::ThreadPool> pool = std::make_unique<opt::ThreadPool>(1);
  std::unique_ptr<opt::CompiledGraph> graph;
  std::unique_ptr<opt::Plan> plan;

  PlanFixture(IrModel m, const std::vector<Tensor>& inputs) : model(std::move(m)) {
    SessionOptions options;
    options.mode = ExecutionMode::Exact;
    options.optimization_level = OptimizationLevel::None;
    graph = opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, pool.get()});
    plan = std::make_unique<opt::Plan>(*graph, inputs);
  }
  const opt::PlanValue& value(const std::string& name) const {
    return plan->values()[static_cast<std::size_t>(graph->value_id(name))];
  }
};

}  // namespace onemodel::test
