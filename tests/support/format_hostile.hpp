// Hostile OneModel files generated from code (spec/format.md sections 1.1, 2 and 3.1): each
// breaks one rule of the format and names the kind of error a reader must report, as
// `<Kind>-<case>`. Used by tests/unit/format_hostile_test.cpp and available to fuzzers as seeds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "onemodel/error.hpp"

namespace onemodel::test {

struct HostileFormatFile {
  std::string name;                 // `<Kind>-<case>`
  ModelErrorKind kind;              // the kind the reader must report
  std::string field_path_prefix;    // the error's field path starts with this
  std::vector<std::byte> bytes;
};

// A small valid file: the base every hostile file is derived from.
std::vector<std::byte> valid_format_file();

std::vector<HostileFormatFile> make_hostile_format_files();

}  // namespace onemodel::test
