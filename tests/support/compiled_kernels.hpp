// What the optimized engine's passes left in a compiled graph, for the pass tests: how many nodes
// run a kernel whose type name contains `kind` (e.g. "LinearOp", "ElementwiseProgramOp").
#pragma once

#include <cstddef>
#include <string>
#include <typeinfo>

#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::test {

inline std::size_t count_kernels(const opt::CompiledGraph& graph, const char* kind) {
  std::size_t n = 0;
  for (const auto& node : graph.nodes) {
    if (node.kernel == nullptr) continue;
    const OpKernel& kernel = *node.kernel;  // typeid of a plain reference: no side effect to evaluate
    if (std::string(typeid(kernel).name()).find(kind) != std::string::npos) ++n;
  }
  return n;
}

}  // namespace onemodel::test
