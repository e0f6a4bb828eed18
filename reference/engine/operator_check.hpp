// Session creation checks over the whole model (spec/session.md section 3): every operator of the
// graph and its subgraphs resolved, all missing ones reported together; in exact mode every
// operator without an exact kernel reported together.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/graph/half_adapter.hpp"
#include "core/graph/op_kernel.hpp"
#include "core/graph/subgraph.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"

namespace onemodel {

// One kernel per node of `graph`, in node (file) order. Throws SessionError(UnsupportedOperator)
// listing every missing `Type (opset N)` of the graph and all its subgraphs, then
// SessionError(InvalidModel) for the first node that leaves out a required input
// (check_required_inputs), then SessionError(ExactModeUnavailable) listing every operator type
// without an exact kernel.
// `subgraphs` compiles the bodies of If, Loop, Scan and SequenceMap (NodeInfo::subgraphs()).
std::vector<std::unique_ptr<OpKernel>> make_kernels(const IrGraph& graph, const SessionOptions& options,
                                                    const SubgraphCompiler* subgraphs = nullptr);

// The same checks; each kernel comes from `maker` when it returns one (the optimized engine's
// overrides), else from the reference table.
using KernelMaker = std::function<std::unique_ptr<OpKernel>(const NodeInfo&)>;
// `half` says how the half-precision adapter runs (core/graph/half_adapter.hpp).
std::vector<std::unique_ptr<OpKernel>> make_kernels(const IrGraph& graph, const SessionOptions& options,
                                                    const KernelMaker& maker,
                                                    const HalfAdapterOptions& half = HalfAdapterOptions(),
                                                    const SubgraphCompiler* subgraphs = nullptr);

// The operator's display name: `Type`, or `domain.Type` outside the default domain.
std::string operator_display_name(const IrNode& node);

}  // namespace onemodel
