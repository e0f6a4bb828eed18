#include "arrays.hpp"

#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <span>

#include <nanobind/ndarray.h>

#include "onemodel/buffer.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor_error.hpp"

namespace nb = nanobind;

namespace onemodel::python {
namespace {

// The Python object behind a borrowed buffer: its reference is dropped with the GIL taken, from
// whichever thread lets the last tensor go.
std::shared_ptr<void> keep_alive(const nb::object& owner) {
  PyObject* object = owner.ptr();
  Py_INCREF(object);
  return std::shared_ptr<void>(object, [](void* p) {
    PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(p));
    PyGILState_Release(state);
  });
}

// The DLPack type NumPy reads for each stored element type. BF16 has no NumPy type: its raw bits
// are given as uint16; nor have the 8-bit floats: their raw bits are given as uint8 (a NumPy
// uint8 view; decode with onemodel's rules, spec/tensors.md section 2.1).
nb::dlpack::dtype numpy_type(DType type) {
  using nb::dlpack::dtype_code;
  const auto make = [](dtype_code code, int bits) {
    return nb::dlpack::dtype{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1};
  };
  switch (type) {
    case DType::F32: return make(dtype_code::Float, 32);
    case DType::F64: return make(dtype_code::Float, 64);
    case DType::F16: return make(dtype_code::Float, 16);
    case DType::BF16: return make(dtype_code::UInt, 16);
    case DType::U8: return make(dtype_code::UInt, 8);
    case DType::U16: return make(dtype_code::UInt, 16);
    case DType::U32: return make(dtype_code::UInt, 32);
    case DType::U64: return make(dtype_code::UInt, 64);
    case DType::I8: return make(dtype_code::Int, 8);
    case DType::I16: return make(dtype_code::Int, 16);
    case DType::I32: return make(dtype_code::Int, 32);
    case DType::I64: return make(dtype_code::Int, 64);
    case DType::Bool: return make(dtype_code::Bool, 8);
    case DType::String:  // not a DLPack type (spec/tensors.md section 8)
      throw TensorError(TensorErrorKind::Type, "STRING tensors are not supported by the Python package");
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: return make(dtype_code::UInt, 8);
    // docs/api.md: NumPy has no 4- or 2-bit types; outputs of these types are int8 arrays
    // (INT4, INT2, sign-extended) or uint8 arrays (UINT4, UINT2, FLOAT4E2M1 codes), one element
    // per byte (spec/tensors.md section 2.1).
    case DType::I4:
    case DType::I2: return make(dtype_code::Int, 8);
    case DType::U4:
    case DType::U2:
    case DType::F4E2M1: return make(dtype_code::UInt, 8);
  }
  throw TensorError(TensorErrorKind::Type, "no NumPy type for element type " + std::to_string(static_cast<int>(type)));
}

}  // namespace

InputCounters& input_counters() {
  static InputCounters counters;
  return counters;
}

Tensor tensor_from_array(const InputArray& array) {
  if (!dtype_is_stored(array.element_type)) {
    throw TensorError(TensorErrorKind::Type, std::string("element type ")
                                                 .append(std::to_string(array.element_type))
                                                 .append(" is not one the library stores"));
  }
  const DType type = static_cast<DType>(array.element_type);
  const Shape shape(std::span<const std::int64_t>(array.shape.data(), array.shape.size()));  // checks rank, extents
  const std::size_t size = dtype_size(type);
  const std::int64_t count = shape.element_count();
  if (count < 0 || static_cast<std::uint64_t>(count) > std::numeric_limits<std::size_t>::max() / size ||
      static_cast<std::size_t>(count) * size != array.byte_size) {
    throw TensorError(TensorErrorKind::Shape, std::string("an array of ")
                                                  .append(std::to_string(array.byte_size))
                                                  .append(" bytes for shape ")
                                                  .append(shape.to_string()));
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(array.address);
  if (array.address % size != 0 || array.byte_size == 0) {
    // An address the element type does not divide (a NumPy view at an odd byte offset): copied.
    input_counters().copied.fetch_add(1, std::memory_order_relaxed);
    return Tensor::from_bytes(type, shape, std::span<const std::byte>(bytes, array.byte_size));
  }
  if (array.copied_by_caller) {
    input_counters().copied.fetch_add(1, std::memory_order_relaxed);
  } else {
    input_counters().borrowed.fetch_add(1, std::memory_order_relaxed);
  }
  // The buffer starts at the 64-byte boundary at or below the array; the tensor at the array.
  const std::uintptr_t block = array.address / kBufferAlignment * kBufferAlignment;
  const std::size_t offset = static_cast<std::size_t>(array.address - block);
  // Sessions read inputs and never write them (spec/session.md section 4, "Inputs are never
  // modified or kept"), so a read-only array may be lent as well.
  auto buffer = Buffer::borrow(reinterpret_cast<std::byte*>(block), offset + array.byte_size, keep_alive(array.owner));
  return Tensor::over(std::move(buffer), offset, array.byte_size, type, shape);
}

nb::object array_from_tensor(const Tensor& result) {
  result.check_live();
  Tensor owned = result;
  // A result over an input's memory (an output that is an input) or over memory the session
  // keeps is copied, so the array never aliases the caller's input or changes with a later run.
  if (!owned.owns_buffer() || owned.buffer()->borrowed() || !owned.is_contiguous()) {
    Tensor copy = Tensor::empty(owned.dtype(), owned.shape());
    const std::size_t bytes = static_cast<std::size_t>(owned.element_count()) * dtype_size(owned.dtype());
    owned.copy_to(std::span<std::byte>(copy.buffer()->data() + copy.byte_offset(), bytes));
    owned = std::move(copy);
  }
  std::vector<std::size_t> shape;
  for (int d = 0; d < owned.rank(); ++d) shape.push_back(static_cast<std::size_t>(owned.shape()[d]));
  std::byte* data = owned.buffer()->data() + owned.byte_offset() +
                    static_cast<std::size_t>(owned.offset()) * dtype_size(owned.dtype());
  auto* holder = new Tensor(std::move(owned));
  nb::capsule owner(holder, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  nb::ndarray<nb::numpy> array(data, shape.size(), shape.data(), owner, nullptr, numpy_type(holder->dtype()));
  return nb::cast(array, nb::rv_policy::reference);
}

}  // namespace onemodel::python
