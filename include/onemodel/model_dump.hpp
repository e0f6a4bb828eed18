// The structural dump of a model (spec/dump.md): a text that the `onnx` Python package can
// reproduce exactly (tools/onnx_dump.py), used to check the importer and the format.
#pragma once

#include <string>

#include "onemodel/ir.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

std::string dump_model(const IrModel& model);

}  // namespace onemodel

#pragma GCC visibility pop
