// Writes the manifest JSON of a model (spec/format.md section 4): fields in the order of the
// schema tables of section 2, no insignificant whitespace, tensor offsets from the data layout.
#pragma once

#include <string>

#include "core/format/data_layout.hpp"
#include "onemodel/ir.hpp"

namespace onemodel {

// Throws ModelError when the model cannot be written (text that is not UTF-8, a type without
// a kind where the schema needs one).
std::string write_manifest(const IrModel& model, const DataLayout& layout);

}  // namespace onemodel
