// ONNX TensorProto.DataType codes 1..28 and what spec/onnx-import.md section 3 needs of them:
// the bits per element and which typed field may carry their values.
#pragma once

#include <cstdint>

namespace onemodel::onnx {

inline constexpr std::int32_t kMaxDataType = 28;

// The typed TensorProto fields (spec/onnx-import.md section 3).
enum class TypedField { None, Float, Double, Int64, Uint64, Int32, String };

// Bits per element for codes 1..28 (strings: 0); -1 for codes outside 1..28.
int element_bits(std::int32_t data_type) noexcept;
// The one typed field that may carry values of this type.
TypedField typed_field_for(std::int32_t data_type) noexcept;
const char* typed_field_name(TypedField field) noexcept;

}  // namespace onemodel::onnx
