#include "core/protobuf/utf8.hpp"

#include <string_view>

#include "core/util/utf8.hpp"

namespace onemodel::pb {

// spec/onnx-import.md section 1: string fields must be valid UTF-8 (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF). The rule is shared with the JSON reader (core/util/utf8).
std::size_t first_invalid_utf8(std::span<const std::byte> bytes) noexcept {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t length = utf8_sequence_length(text, pos);
    if (length == 0) return pos;
    pos += length;
  }
  return text.size();
}

}  // namespace onemodel::pb
