// The tensor rules of spec/onnx-import.md section 3: dimensions, size limits, the data source and
// its length. Turns the fields of one TensorProto into an IrTensor whose data is a view.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/onnx/import_context.hpp"
#include "core/onnx/tensor_fields.hpp"
#include "onemodel/ir.hpp"

namespace onemodel::onnx {

inline constexpr std::uint64_t kMaxElementCount = std::uint64_t{1} << 60;
inline constexpr std::uint64_t kMaxTensorBytes = 0x7FFFFFFFu;

// ceil(count * bits / 8) without overflow for count <= 2^60 and bits <= 128.
std::uint64_t packed_byte_length(std::uint64_t count, int bits) noexcept;

// The element count of `dims`, or nothing when it exceeds 2^60. Dims must be non-negative.
std::optional<std::uint64_t> element_count(const std::vector<std::int64_t>& dims) noexcept;

// ctx.pb's path names the tensor. Throws ModelError.
IrTensor build_tensor(ImportContext& ctx, TensorFields&& fields);

}  // namespace onemodel::onnx
