// Sequences and optionals inside plans (spec/values.md section 2, from graph-runtime.md section 8):
// each is carried as one rank-1 uint8 tensor, its "packed" form, so sessions, plans and the memory
// planner keep one value kind. Internal: the public API hands out onemodel::Value.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "onemodel/value.hpp"

namespace onemodel {

// The bytes a packed value begins with: "OMPV".
inline constexpr std::uint8_t kPackedTag[4] = {0x4F, 0x4D, 0x50, 0x56};

// True when `tensor` is a uint8 vector that begins with the tag and a known kind byte (the
// structure after it is checked by unpack_value).
bool is_packed_value(const Tensor& tensor) noexcept;

// True when `tensor` is the packed form of an optional (empty or holding a value).
bool is_packed_optional(const Tensor& tensor) noexcept;

// The packed form's size in bytes, and the form itself written into `out` (exactly that size).
// `value` is a sequence or an optional. Throws SessionError(ResourceExhausted) naming `what` when
// the form would pass the tensor byte limit (2^31 - 1).
std::int64_t packed_size(const Value& value, const std::string& what);
void write_packed(const Value& value, std::span<std::byte> out);
// A new uint8 tensor holding the packed form.
Tensor pack_value(const Value& value, const std::string& what);

// The value a packed tensor holds, every element copied into a tensor of its own. Every length,
// rank, extent and type in the bytes is checked before use: a malformed form throws
// SessionError(InvalidModel) naming `what`.
Value unpack_value(const Tensor& packed, const std::string& what);

// For kernels (spec/values.md section 3): input `i` as a value. A packed input is unpacked; a
// plain tensor is a tensor value.
Value input_value_of(const RunContext& context, std::size_t i);
// Writes `value` into data-dependent output `i`: a tensor value as it is, a sequence or an
// optional in its packed form (allocated from the run's memory, charged first).
void set_output_value(RunContext& context, std::size_t i, const Value& value);

}  // namespace onemodel
