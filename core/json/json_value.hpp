// A parsed JSON value (RFC 8259) as the OneModel manifest reader needs it: integers kept as exact
// 64-bit integers, numbers with a fraction or exponent kept apart (spec/format.md section 2.1:
// integers are written without them), object members in file order, and the byte offset of
// every value within the parsed text so errors can name the file offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onemodel {

struct JsonMember;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  // How a number was written: an integer that fits int64, an integer outside int64, or a
  // number with a fraction or exponent (never accepted where the format needs an integer).
  enum class NumberForm { Integer, IntegerOutOfRange, Decimal };

  Kind kind = Kind::Null;
  std::uint64_t offset = 0;  // byte offset of the value's first character in the text
  bool boolean = false;
  NumberForm number_form = NumberForm::Integer;
  std::int64_t integer = 0;  // NumberForm::Integer only
  std::string text;          // String: the decoded UTF-8; Number: the literal as written
  std::vector<JsonValue> items;                             // Array
  // Object, file order. A vector of a type completed below: std::pair<std::string, JsonValue>
  // would need JsonValue complete here.
  std::vector<JsonMember> members;

  bool is_integer() const noexcept { return kind == Kind::Number && number_form == NumberForm::Integer; }
  // The first member named `key`, or null. Duplicate keys are kept; the first one wins.
  const JsonValue* find(std::string_view key) const noexcept;
};

struct JsonMember {
  std::string first;  // the member name
  JsonValue second;   // its value
};

inline const JsonValue* JsonValue::find(std::string_view key) const noexcept {
  for (const auto& member : members) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

const char* to_string(JsonValue::Kind kind) noexcept;

}  // namespace onemodel
