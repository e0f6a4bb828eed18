#include "tools/refdata/json_line.hpp"

#include <charconv>
#include <cmath>

#include "core/json/json_writer.hpp"

namespace onemodel::refdata {

std::string json_string(const std::string& text) {
  JsonWriter writer;
  writer.string(text);
  return writer.take();
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char digits[64];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  return std::string(digits, result.ptr);
}

void JsonObject::add(const std::string& key, const std::string& json_value) {
  text_ += text_.empty() ? '{' : ',';
  text_ += json_string(key);
  text_ += ':';
  text_ += json_value;
}

std::string JsonObject::close() const { return (text_.empty() ? "{" : text_) + "}"; }

}  // namespace onemodel::refdata
