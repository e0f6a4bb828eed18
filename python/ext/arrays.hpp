// NumPy arrays in and out of the library (docs/api.md "Python", the no-copy rule).
//
// In: a C-contiguous array whose address is a multiple of its element size becomes a tensor over
// the array's own memory (Buffer::borrow, the array kept alive by the tensor); any other array is
// copied once into a pooled buffer. The kernels read tensors at any element-aligned address (views
// and arena values start anywhere; no kernel uses aligned loads on tensor data), so element
// alignment is all a borrowed tensor needs; the Buffer itself starts at the 64-byte boundary at or
// below the array, as every buffer does (spec/tensors.md section 6), and the tensor at the offset.
// Out: a tensor the run allocated becomes an ndarray over its memory, the tensor kept alive by a
// capsule; a result that is not such a tensor (over an input's memory, or not owning its buffer)
// is copied once first.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "onemodel/tensor.hpp"

namespace onemodel::python {

// How many inputs were borrowed and how many copied since the module was loaded (the tests'
// evidence for the no-copy rule).
struct InputCounters {
  std::atomic<std::uint64_t> borrowed{0};
  std::atomic<std::uint64_t> copied{0};
};
InputCounters& input_counters();

// One input as the Python layer describes it: the array's element type (ONNX code), shape,
// address and byte size, the array object itself (kept alive by a borrowed tensor), and whether
// the Python layer already made this array as a contiguous copy of the caller's.
struct InputArray {
  std::int32_t element_type = 0;
  std::vector<std::int64_t> shape;
  std::uintptr_t address = 0;
  std::size_t byte_size = 0;
  nanobind::object owner;
  bool copied_by_caller = false;
};

// Call with the GIL held (the keep-alive takes a reference to the array).
Tensor tensor_from_array(const InputArray& array);

// Call with the GIL held.
nanobind::object array_from_tensor(const Tensor& result);

}  // namespace onemodel::python
