// Structural comparison of two IR models for round-trip tests: every field the OneModel format
// stores (spec/format.md section 2), floats compared by bit pattern, tensor bytes byte by byte.
// Not compared: IrModel::source_name and IrValueInfo::doc_string (the format has no field for it).
#pragma once

#include <string>

#include "onemodel/ir.hpp"

namespace onemodel::test {

// Empty when equal, else a description of the first difference with its path.
std::string ir_difference(const IrModel& a, const IrModel& b);

}  // namespace onemodel::test
