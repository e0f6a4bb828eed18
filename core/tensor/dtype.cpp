#include "onemodel/dtype.hpp"

#include <array>
#include <string>

#include "onemodel/tensor_error.hpp"

namespace onemodel {

namespace {

// TensorProto.DataType names in code order 0..28 (checked against the onnx package).
constexpr std::array<std::string_view, 29> kOnnxNames = {
    "UNDEFINED",      "FLOAT",          "UINT8",        "INT8",           "UINT16",
    "INT16",          "INT32",          "INT64",        "STRING",         "BOOL",
    "FLOAT16",        "DOUBLE",         "UINT32",       "UINT64",         "COMPLEX64",
    "COMPLEX128",     "BFLOAT16",       "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
    "FLOAT8E5M2FNUZ", "UINT4",          "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0",
    "UINT2",          "INT2",           "FLOAT6E2M3",   "FLOAT6E3M2",
};

// Size in bytes, 0 for codes that are not stored.
constexpr std::size_t stored_size(std::int32_t code) noexcept {
  switch (static_cast<DType>(code)) {
    case DType::U8:
    case DType::I8:
    case DType::Bool:
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: return 1;
    // spec/tensors.md section 2.2: sub-byte types hold one element per byte in memory.
    case DType::U4:
    case DType::I4:
    case DType::F4E2M1:
    case DType::U2:
    case DType::I2: return 1;
    case DType::U16:
    case DType::I16:
    case DType::F16:
    case DType::BF16: return 2;
    case DType::F32:
    case DType::I32:
    case DType::U32: return 4;
    case DType::I64:
    case DType::F64:
    case DType::U64: return 8;
    case DType::String: return 0;  // not bytes: spec/tensors.md section 8
  }
  return 0;
}

std::string describe_code(std::int32_t code) {
  return std::string(onnx_type_name(code)) + " (" + std::to_string(code) + ")";
}

}  // namespace

std::size_t dtype_size(DType type) {
  if (type == DType::String) {
    // spec/tensors.md section 8: string elements are std::string objects; a byte copy of one
    // would share or leak its heap memory, so byte-level code is refused here.
    throw TensorError(TensorErrorKind::Type, "STRING elements have no fixed byte size (this operation moves raw bytes)");
  }
  std::size_t size = stored_size(static_cast<std::int32_t>(type));
  if (size == 0) {
    throw TensorError(TensorErrorKind::Type,
                      "not a stored element type: " + describe_code(static_cast<std::int32_t>(type)));
  }
  return size;
}

std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::F32: return "F32";
    case DType::U8: return "U8";
    case DType::I8: return "I8";
    case DType::U16: return "U16";
    case DType::I16: return "I16";
    case DType::I32: return "I32";
    case DType::I64: return "I64";
    case DType::Bool: return "Bool";
    case DType::F16: return "F16";
    case DType::F64: return "F64";
    case DType::U32: return "U32";
    case DType::U64: return "U64";
    case DType::BF16: return "BF16";
    case DType::String: return "String";
    case DType::F8E4M3FN: return "F8E4M3FN";
    case DType::F8E4M3FNUZ: return "F8E4M3FNUZ";
    case DType::F8E5M2: return "F8E5M2";
    case DType::F8E5M2FNUZ: return "F8E5M2FNUZ";
    case DType::F8E8M0: return "F8E8M0";
    case DType::U4: return "U4";
    case DType::I4: return "I4";
    case DType::F4E2M1: return "F4E2M1";
    case DType::U2: return "U2";
    case DType::I2: return "I2";
  }
  return "Invalid";
}

bool dtype_is_floating(DType type) noexcept {
  return type == DType::F32 || type == DType::F16 || type == DType::BF16 || type == DType::F64;
}

bool dtype_is_stored(std::int32_t code) noexcept {
  return stored_size(code) != 0 || code == static_cast<std::int32_t>(DType::String);
}

std::string_view onnx_type_name(std::int32_t code) noexcept {
  if (code < 0 || code >= static_cast<std::int32_t>(kOnnxNames.size())) return "UNKNOWN";
  return kOnnxNames[static_cast<std::size_t>(code)];
}

DType dtype_from_onnx(std::int32_t code) {
  // spec/tensors.md section 2: other codes are named and rejected.
  if (!dtype_is_stored(code)) {
    throw TensorError(TensorErrorKind::Type,
                      "ONNX element type " + describe_code(code) + " is not supported");
  }
  return static_cast<DType>(code);
}

}  // namespace onemodel
