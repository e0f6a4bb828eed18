// The structural dump of a model (spec/dump.md): a text that the `onnx` Python package can
// reproduce exactly (tools/onnx_dump.py), used to check the importer and the format.
#pragma once

#include <string>

#include "onemodel/ir.hpp"

namespace onemodel {

std::string dump_model(const IrModel& model);

}  // namespace onemodel
