// Errors raised by the tensor layer: shapes, views, element types, stale handles, the pool.
// spec/tensors.md section 1: one exception type with a kind; shape violations are thrown before
// anything is allocated (spec/tensors.md section 3).
#pragma once

#include <stdexcept>
#include <string>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

enum class TensorErrorKind {
  Shape,    // rank, extent, element-count or byte-size limit; mismatched element counts
  View,     // a view whose reachable offsets leave its buffer, or a bad axis/permutation/range
  Index,    // an element index outside the shape
  Type,     // an element type the library does not store, or a typed access of the wrong type
  Stale,    // the buffer was returned or its arena reset since the tensor was made
  Pool,     // a request the pool cannot serve, releasing an arena tensor, a buffer in the wrong state
  Overrun,  // Checked builds: the canary bytes after a buffer were overwritten
};

const char* to_string(TensorErrorKind kind) noexcept;

class TensorError : public std::runtime_error {
 public:
  TensorError(TensorErrorKind kind, std::string message);

  TensorErrorKind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }

 private:
  TensorErrorKind kind_;
  std::string message_;
};

}  // namespace onemodel

#pragma GCC visibility pop
