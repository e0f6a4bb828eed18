// spec/format.md section 1.2: the manifest is strict RFC 8259 JSON; integers are exact.
#include "core/json/json_reader.hpp"

#include <cstdint>

#include "core/util/utf8.hpp"

namespace onemodel {

const char* to_string(JsonValue::Kind kind) noexcept {
  switch (kind) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "boolean";
    case JsonValue::Kind::Number: return "number";
    case JsonValue::Kind::String: return "string";
    case JsonValue::Kind::Array: return "array";
    case JsonValue::Kind::Object: return "object";
  }
  return "unknown";
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, const JsonLimits& limits) : text_(text), limits_(limits) {}

  JsonValue parse_document() {
    if (text_.size() > limits_.max_bytes) {
      throw JsonError("JSON text of " + std::to_string(text_.size()) + " bytes exceeds the limit of " +
                          std::to_string(limits_.max_bytes),
                      0, true);
    }
    // RFC 8259 section 8.1: no byte-order mark in our manifests (spec/format.md section 1.2).
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") fail("byte-order mark", 0);
    skip_whitespace();
    JsonValue value = parse_value(0);
    skip_whitespace();
    if (pos_ != text_.size()) fail("text after the JSON value", pos_);
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& message, std::size_t at) const {
    throw JsonError(message, at, false);
  }

  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return text_[pos_]; }

  void skip_whitespace() noexcept {
    while (!at_end()) {
      const char c = peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  void expect_literal(std::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) fail("invalid literal", pos_);
    pos_ += literal.size();
  }

  JsonValue parse_value(int depth) {
    if (at_end()) fail("unexpected end of JSON text", pos_);
    JsonValue value;
    value.offset = pos_;
    const char c = peek();
    switch (c) {
      case '{': parse_object(value, depth + 1); break;
      case '[': parse_array(value, depth + 1); break;
      case '"':
        value.kind = JsonValue::Kind::String;
        value.text = parse_string();
        break;
      case 't':
        expect_literal("true");
        value.kind = JsonValue::Kind::Bool;
        value.boolean = true;
        break;
      case 'f':
        expect_literal("false");
        value.kind = JsonValue::Kind::Bool;
        break;
      case 'n':
        expect_literal("null");
        value.kind = JsonValue::Kind::Null;
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          parse_number(value);
        } else {
          fail("unexpected character", pos_);
        }
    }
    return value;
  }

  void check_depth(int depth) const {
    if (depth > limits_.max_depth) {
      throw JsonError("JSON nesting deeper than " + std::to_string(limits_.max_depth) + " levels", pos_, true);
    }
  }

  void parse_object(JsonValue& value, int depth) {
    check_depth(depth);
    value.kind = JsonValue::Kind::Object;
    ++pos_;  // '{'
    skip_whitespace();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skip_whitespace();
      if (at_end() || peek() != '"') fail("expected a member name", pos_);
      std::string key = parse_string();
      skip_whitespace();
      if (at_end() || peek() != ':') fail("expected ':'", pos_);
      ++pos_;
      skip_whitespace();
      JsonValue member = parse_value(depth);
      value.members.push_back(JsonMember{std::move(key), std::move(member)});
      skip_whitespace();
      if (at_end()) fail("unterminated object", pos_);
      if (peek() == ',') {
        ++pos_;
        continue;  // a trailing comma then fails on the missing member name
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail("expected ',' or '}'", pos_);
    }
  }

  void parse_array(JsonValue& value, int depth) {
    check_depth(depth);
    value.kind = JsonValue::Kind::Array;
    ++pos_;  // '['
    skip_whitespace();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      skip_whitespace();
      if (!at_end() && peek() == ']') fail("trailing comma in array", pos_);
      value.items.push_back(parse_value(depth));
      skip_whitespace();
      if (at_end()) fail("unterminated array", pos_);
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']'", pos_);
    }
  }

  // RFC 8259 section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  void parse_number(JsonValue& value) {
    value.kind = JsonValue::Kind::Number;
    const std::size_t start = pos_;
    const bool negative = peek() == '-';
    if (negative) ++pos_;
    if (at_end() || peek() < '0' || peek() > '9') fail("invalid number", start);
    const std::size_t digits_start = pos_;
    if (peek() == '0') {
      ++pos_;
      if (!at_end() && peek() >= '0' && peek() <= '9') fail("leading zero in number", start);
    } else {
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    const std::size_t digits_end = pos_;
    bool decimal = false;
    if (!at_end() && peek() == '.') {
      decimal = true;
      ++pos_;
      if (at_end() || peek() < '0' || peek() > '9') fail("invalid fraction", start);
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      decimal = true;
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (at_end() || peek() < '0' || peek() > '9') fail("invalid exponent", start);
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    value.text = std::string(text_.substr(start, pos_ - start));
    if (decimal) {
      value.number_form = JsonValue::NumberForm::Decimal;
      return;
    }
    // Exact integer: accumulate the magnitude in 64 unsigned bits, never through double.
    constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;  // |INT64_MIN|
    std::uint64_t magnitude = 0;
    bool overflow = false;
    for (std::size_t i = digits_start; i < digits_end; ++i) {
      const auto digit = static_cast<std::uint64_t>(text_[i] - '0');
      if (magnitude > (kMaxMagnitude - digit) / 10) {
        overflow = true;
        break;
      }
      magnitude = magnitude * 10 + digit;
    }
    if (overflow || (!negative && magnitude == kMaxMagnitude)) {
      value.number_form = JsonValue::NumberForm::IntegerOutOfRange;
      return;
    }
    value.number_form = JsonValue::NumberForm::Integer;
    value.integer = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  }

  unsigned parse_hex4() {
    if (text_.size() - pos_ < 4) fail("truncated \\u escape", pos_);
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') code |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= static_cast<unsigned>(c - 'A' + 10);
      else fail("invalid \\u escape", pos_ - 1);
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    const std::size_t start = pos_;
    ++pos_;  // '"'
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string", start);
      const char c = peek();
      const auto byte = static_cast<unsigned char>(c);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (byte < 0x20) fail("control character in string", pos_);
      if (c == '\\') {
        ++pos_;
        if (at_end()) fail("unterminated escape", pos_);
        const char e = text_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const std::size_t escape_at = pos_ - 2;
            unsigned code = parse_hex4();
            if (code >= 0xDC00 && code <= 0xDFFF) fail("lone low surrogate", escape_at);
            if (code >= 0xD800 && code <= 0xDBFF) {
              // A high surrogate must be followed by an escaped low surrogate.
              if (text_.substr(pos_, 2) != "\\u") fail("lone high surrogate", escape_at);
              pos_ += 2;
              const unsigned low = parse_hex4();
              if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without a low surrogate", escape_at);
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(out, code);
            break;
          }
          default: fail("invalid escape", pos_ - 2);
        }
        continue;
      }
      const std::size_t length = utf8_sequence_length(text_, pos_);
      if (length == 0) fail("invalid UTF-8", pos_);
      out.append(text_.substr(pos_, length));
      pos_ += length;
    }
  }

  std::string_view text_;
  const JsonLimits& limits_;
  std::size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(std::string_view text, const JsonLimits& limits) {
  Parser parser(text, limits);
  return parser.parse_document();
}

}  // namespace onemodel
