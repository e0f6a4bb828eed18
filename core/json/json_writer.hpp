// A JSON writer with no insignificant whitespace and deterministic output (spec/format.md
// section 4): members come out in the order they are written, integers in decimal, strings with
// the minimal escapes (", \, control characters as \uXXXX or the short forms).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel {

class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);  // inside an object, before each member's value
  void string(std::string_view utf8);  // the caller has checked it is valid UTF-8
  void integer(std::int64_t value);
  void unsigned_integer(std::uint64_t value);
  void null();

  const std::string& text() const noexcept { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();
  void write_literal(std::string_view utf8);
  std::string out_;
  // Per open container: true until its first element has been written.
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace onemodel
