// The SubgraphCompiler each engine hands its kernel factories (spec/values.md section 3): a body
// becomes a model of its own (the body's inputs, then its captures as untyped inputs), resolved
// as a main graph is, and an engine of the same kind made from it. Internal.
#pragma once

#include <functional>
#include <memory>

#include "core/graph/subgraph.hpp"
#include "core/session/engine.hpp"

namespace onemodel {

// Limits checked when a session is made, before any engine (spec/values.md section 5).
inline constexpr int kMaxSubgraphDepth = 32;
inline constexpr std::int64_t kMaxSubgraphCount = 4096;
// The plans a body's engine keeps at least (SessionOptions::max_cached_plans otherwise).
inline constexpr int kMinBodyCachedPlans = 64;

// Throws SessionError(Unsupported) when the model's subgraphs nest deeper than kMaxSubgraphDepth
// or number more than kMaxSubgraphCount. Walks without recursion.
void check_subgraph_limits(const IrGraph& graph);

using EngineFactory =
    std::function<std::unique_ptr<Engine>(const IrModel& model, const SessionOptions& options, const EngineParent& parent)>;

// `model` is the model whose `graph` the engine runs (a main graph or a compiled body); `parent`
// what that engine inherited. The bodies it compiles get depth parent.depth + 1.
std::unique_ptr<SubgraphCompiler> make_body_compiler(const IrModel& model, const SessionOptions& options,
                                                     const EngineParent& parent, EngineFactory factory);

}  // namespace onemodel
