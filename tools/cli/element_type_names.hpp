// Names of ONNX element type codes as the command line prints them (docs/command-line.md).
#pragma once

#include <cstdint>
#include <string>

namespace onemodel::cli {

// ONNX's own spelling in `tensor(float)`: "float", "int64", "float16", ...; "type<N>" for codes
// this version does not know.
std::string element_type_name(std::int32_t code);

}  // namespace onemodel::cli
