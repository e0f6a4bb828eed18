// Which activation node a fusing pass may absorb, and the element-wise kernel arguments its
// override runs (graph-passes.md: Relu, Clip with constant bounds, HardSwish, HardSigmoid,
// Sigmoid, Gelu, Tanh, LeakyRelu; and the SelfGateOp of the `self-gate` pass). The arguments are
// those of optimized/ops/op_<name>.cpp (or the fused node's), so the fused kernel applies the very
// function the separate operator applies.
#pragma once

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/passes/pass_graph.hpp"

namespace onemodel::opt {

// True when `node` is one of the activations with everything but input 0 constant (Clip's
// bounds from opset 11: omitted or constant one-element float32); `args` then holds its function.
bool activation_args(const PassGraph& graph, const CompiledNode& node, ew::UnaryArgs& args);

}  // namespace onemodel::opt
