// Conversion of TensorProto's typed fields to the raw little-endian layout of raw_data
// (spec/onnx-import.md section 3, "Typed fields").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/onnx/element_types.hpp"
#include "core/onnx/tensor_fields.hpp"

namespace onemodel::onnx {

// The raw bytes the typed field `field` of `t` holds for element type `data_type`. The caller
// has checked that `field` is the typed field of `data_type` and compares the length.
std::vector<std::byte> convert_typed_field(const TensorFields& t, TypedField field, std::int32_t data_type);

}  // namespace onemodel::onnx
