// Base64 (RFC 4648 section 4, standard alphabet, padded), strict: the manifest stores bytes this
// way (spec/format.md section 1.2). Decoding rejects missing or extra padding, characters outside
// the alphabet, whitespace and non-zero bits in the unused part of the last character.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace onemodel {

std::string encode_base64(std::string_view bytes);
// Empty optional when `text` is not strict padded base64.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace onemodel
