// UTF-8 validation for protobuf `string` fields (spec/onnx-import.md section 1): overlong forms,
// surrogates (U+D800..U+DFFF) and code points above U+10FFFF are invalid.
#pragma once

#include <cstddef>
#include <span>

namespace onemodel::pb {

// Returns the index of the first byte of the first invalid sequence, or `bytes.size()` when
// the whole range is valid UTF-8.
std::size_t first_invalid_utf8(std::span<const std::byte> bytes) noexcept;

}  // namespace onemodel::pb
