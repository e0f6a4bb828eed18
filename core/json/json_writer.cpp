#include "core/json/json_writer.hpp"

namespace onemodel {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
}

void JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
}

void JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
}

void JsonWriter::key(std::string_view name) {
  before_value();
  write_literal(name);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::string(std::string_view utf8) {
  before_value();
  write_literal(utf8);
}

void JsonWriter::write_literal(std::string_view utf8) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_ += '"';
  for (const char c : utf8) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (byte < 0x20) {
          out_ += "\\u00";
          out_ += kHex[byte >> 4];
          out_ += kHex[byte & 15];
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
}

void JsonWriter::integer(std::int64_t value) {
  before_value();
  out_ += std::to_string(value);
}

void JsonWriter::unsigned_integer(std::uint64_t value) {
  before_value();
  out_ += std::to_string(value);
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

}  // namespace onemodel
