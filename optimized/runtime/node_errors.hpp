// Errors raised while shaping, evaluating or running a node name it, as the reference engine's
// do (spec/session.md section 5); a tensor limit met on the way is Unsupported.
#pragma once

#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"
#include "optimized/runtime/compiled_graph.hpp"

namespace onemodel::opt {

template <typename F>
void with_node(const CompiledNode& node, F&& f) {
  try {
    f();
  } catch (const SessionError& e) {
    if (!e.node_name().empty()) throw;
    throw SessionError(e.kind(), e.message(), node.info.name(), e.operators());
  } catch (const TensorError& e) {
    throw SessionError(SessionErrorKind::Unsupported, node.ir->op_type + ": " + e.message(), node.info.name());
  }
}

}  // namespace onemodel::opt
