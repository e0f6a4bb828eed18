// What the ONNX message parsers share during one import.
#pragma once

#include "core/onnx/external_data.hpp"
#include "core/protobuf/parse_context.hpp"

namespace onemodel::onnx {

struct ImportContext {
  pb::ParseContext& pb;
  ExternalDataStore& external;
};

}  // namespace onemodel::onnx
