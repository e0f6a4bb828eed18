// A strict JSON reader (RFC 8259) written for the OneModel manifest (spec/format.md section 1.2).
// Rejects everything RFC 8259 does not allow: trailing commas, leading zeros, bad escapes, lone
// surrogates, invalid UTF-8, control characters in strings, a byte-order mark, trailing text.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/json/json_value.hpp"

namespace onemodel {

struct JsonLimits {
  std::uint64_t max_bytes = std::uint64_t{512} << 20;  // spec/format.md section 1.2
  int max_depth = 1024;                               // arrays and objects open at once
};

// A syntax error or an exceeded limit, with the byte offset in the text where it was found.
class JsonError : public std::runtime_error {
 public:
  JsonError(std::string message, std::uint64_t offset, bool limit_exceeded)
      : std::runtime_error(message), offset_(offset), limit_exceeded_(limit_exceeded) {}
  std::uint64_t offset() const noexcept { return offset_; }
  // True for the size and depth limits (the text may be valid JSON, just too big for us).
  bool limit_exceeded() const noexcept { return limit_exceeded_; }

 private:
  std::uint64_t offset_;
  bool limit_exceeded_;
};

// Parses one JSON value filling the whole text (whitespace around it allowed). Throws JsonError.
JsonValue parse_json(std::string_view text, const JsonLimits& limits = {});

}  // namespace onemodel
