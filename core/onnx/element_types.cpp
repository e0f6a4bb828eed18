#include "core/onnx/element_types.hpp"

namespace onemodel::onnx {

// spec/onnx-import.md section 3: 32 for float, int32, uint32; 8 for uint8, int8, bool and the
// 8-bit floats; 16 for uint16, int16, float16, bfloat16; 64 for int64, uint64, double,
// complex64; 128 for complex128; 4, 2 and 6 for the sub-byte types.
int element_bits(std::int32_t t) noexcept {
  switch (t) {
    case 1: case 6: case 12: return 32;                   // float, int32, uint32
    case 2: case 3: case 9: return 8;                     // uint8, int8, bool
    case 17: case 18: case 19: case 20: case 24: return 8;  // float8 variants, float8e8m0
    case 4: case 5: case 10: case 16: return 16;          // uint16, int16, float16, bfloat16
    case 7: case 13: case 11: case 14: return 64;         // int64, uint64, double, complex64
    case 15: return 128;                                  // complex128
    case 21: case 22: case 23: return 4;                  // uint4, int4, float4e2m1
    case 25: case 26: return 2;                           // uint2, int2
    case 27: case 28: return 6;                           // float6e2m3, float6e3m2
    case 8: return 0;                                     // string
    default: return -1;
  }
}

TypedField typed_field_for(std::int32_t t) noexcept {
  switch (t) {
    case 1: case 14: return TypedField::Float;
    case 11: case 15: return TypedField::Double;
    case 7: return TypedField::Int64;
    case 12: case 13: return TypedField::Uint64;
    case 8: return TypedField::String;
    default: return t >= 1 && t <= kMaxDataType ? TypedField::Int32 : TypedField::None;
  }
}

const char* typed_field_name(TypedField field) noexcept {
  switch (field) {
    case TypedField::Float: return "float_data";
    case TypedField::Double: return "double_data";
    case TypedField::Int64: return "int64_data";
    case TypedField::Uint64: return "uint64_data";
    case TypedField::Int32: return "int32_data";
    case TypedField::String: return "string_data";
    case TypedField::None: break;
  }
  return "none";
}

}  // namespace onemodel::onnx
