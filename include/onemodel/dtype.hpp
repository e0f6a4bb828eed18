// Element types. spec/tensors.md section 2: the value of DType is the ONNX TensorProto.DataType
// code, so no mapping table exists; all multi-byte values are little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

enum class DType : std::int32_t {
  F32 = 1,
  U8 = 2,
  I8 = 3,
  U16 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  // UTF-8 (or any) byte strings of any length, stored as std::string objects in a buffer of
  // their own (spec/tensors.md section 8): never raw bytes, never pooled or in a slab.
  String = 8,
  Bool = 9,
  F16 = 10,
  F64 = 11,
  U32 = 12,
  U64 = 13,
  BF16 = 16,
  // The 8-bit floats (issue 17; spec/tensors.md section 2.1), one byte per element.
  F8E4M3FN = 17,
  F8E4M3FNUZ = 18,
  F8E5M2 = 19,
  F8E5M2FNUZ = 20,
  // Sub-byte types (spec/tensors.md section 2.2): one element per byte in memory, packed only in
  // files (ONNX raw_data/int32_data, the OneModel format); I4 and I2 sign-extended, F4E2M1 the
  // 4-bit code in the low bits.
  U4 = 21,
  I4 = 22,
  F4E2M1 = 23,
  F8E8M0 = 24,
  U2 = 25,
  I2 = 26,
};

// F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0 (conversions in onemodel/float8.hpp).
constexpr bool dtype_is_float8(DType type) noexcept {
  return type == DType::F8E4M3FN || type == DType::F8E4M3FNUZ || type == DType::F8E5M2 ||
         type == DType::F8E5M2FNUZ || type == DType::F8E8M0;
}

// Bytes per element (spec/tensors.md section 2 table). Throws TensorError(Type) for a value that
// is not one of the enumerators, and for String: its elements are objects, not bytes, so every
// kernel that moves elements as bytes refuses strings here rather than copying objects
// (spec/tensors.md section 8).
std::size_t dtype_size(DType type);

// True for DType::String.
constexpr bool dtype_is_string(DType type) noexcept { return type == DType::String; }

// The enumerator's name: "F32", "U8", ..., "BF16", "String", "F8E4M3FN", ..., "F8E8M0", "U4", "I4",
// "F4E2M1", "U2", "I2".
std::string_view dtype_name(DType type);

// F32, F16, BF16, F64: the only types that may require gradients (spec/tensors.md section 2);
// the 8-bit floats are storage types and answer false.
bool dtype_is_floating(DType type) noexcept;

// True when `code` is one of the stored types above (String included).
bool dtype_is_stored(std::int32_t code) noexcept;

// The ONNX name of every TensorProto.DataType code 0..28 ("UNDEFINED", "FLOAT", ..., "FLOAT6E3M2");
// "UNKNOWN" for any other number.
std::string_view onnx_type_name(std::int32_t code) noexcept;

// The DType of an ONNX code. Throws TensorError(Type) naming the type (for example
// "ONNX element type STRING (8) is not supported") for codes the library does not store.
DType dtype_from_onnx(std::int32_t code);

}  // namespace onemodel

#pragma GCC visibility pop
