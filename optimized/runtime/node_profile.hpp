// How a run profile names a node of the optimized engine (issue 15; onemodel/run_profile.hpp):
// its model name and operator, what runs it (the override, a kernel a graph pass made, or the
// reference kernel) and the session's instruction-set path.
#pragma once

#include <string>
#include <typeinfo>

#include "onemodel/run_profile.hpp"
#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::opt {

ProfiledNode describe_node(const CompiledNode& node, Isa isa);

// The class's own name from its std::type_info ("LinearOp" for onemodel::opt::LinearOp): the
// last component of an Itanium-ABI nested name (GCC, Clang) or what follows the last "::"
// (MSVC); the whole name when it is neither.
std::string class_name(const std::type_info& type);

}  // namespace onemodel::opt
