// The manifest of a OneModel file (spec/format.md sections 2 and 3.1): from the parsed JSON to
// the IR, every field checked, tensors made views of the data region.
#pragma once

#include <cstdint>
#include <string>

#include "core/json/json_value.hpp"
#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"

namespace onemodel {

struct ManifestContext {
  std::string input_name;
  std::uint32_t header_version = 1;
  std::uint64_t manifest_offset = 64;  // added to JSON offsets to give file offsets
  ByteView data_region;                // data_offset .. end of file
};

// Throws ModelError with the manifest path of the offending field.
IrModel read_manifest(const JsonValue& root, const ManifestContext& context);

}  // namespace onemodel
