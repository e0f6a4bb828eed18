// One JSON object on one line, as the benchmark rows write them (bench_model_row, `onemodel
// bench`). Strings are escaped by the library's JSON writer (the caller passes valid UTF-8);
// numbers use std::to_chars, the shortest round-trip form, which is valid JSON; a non-finite
// number is written as null.
#pragma once

#include <string>

namespace onemodel::refdata {

std::string json_string(const std::string& text);
std::string json_number(double value);

class JsonObject {
 public:
  // `json_value` is already JSON (json_string, json_number, an integer's digits, a closed object).
  void add(const std::string& key, const std::string& json_value);
  std::string close() const;

 private:
  std::string text_;
};

}  // namespace onemodel::refdata
