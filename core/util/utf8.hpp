// UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <string_view>

namespace onemodel {

// Length of the valid UTF-8 sequence starting at text[pos], or 0 when it is invalid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) noexcept;

bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace onemodel
