#include "tools/cli/element_type_names.hpp"

namespace onemodel::cli {

std::string element_type_name(std::int32_t code) {
  // TensorProto.DataType codes 0 to 28, in code order.
  static constexpr const char* kNames[] = {
      "undefined", "float",      "uint8",         "int8",        "uint16",         "int16",
      "int32",     "int64",      "string",        "bool",        "float16",        "double",
      "uint32",    "uint64",     "complex64",     "complex128",  "bfloat16",       "float8e4m3fn",
      "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4",           "float4e2m1",
      "float8e8m0", "uint2",     "int2",          "float6e2m3",  "float6e3m2"};
  if (code >= 0 && code < static_cast<std::int32_t>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[code];
  return "type" + std::to_string(code);
}

}  // namespace onemodel::cli
