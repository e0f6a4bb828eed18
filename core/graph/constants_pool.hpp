// The pool of an engine's constants (initializers, folded constants). It keeps no idle memory, so
// a constant an engine lets go (a weight replaced by its packed form, graph-passes.md "Memory")
// goes back to the system at once instead of waiting in the shared pool's idle lists, where only
// a tensor of its size class could reuse it (peak RSS, issue 15).
#pragma once

#include <string>

#include "onemodel/buffer.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

BufferPool& constants_pool();

// tensor_from_ir (node_info.hpp) with the bytes from constants_pool().
Tensor constant_from_ir(const IrTensor& tensor, const std::string& what);

}  // namespace onemodel
