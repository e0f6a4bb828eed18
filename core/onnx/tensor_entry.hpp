// One TensorProto read on its own (spec/onnx-import.md sections 1 and 3), for the tensor fuzz
// target and tests: the bytes are the TensorProto's payload, as in the backend test data's
// input_*.pb files. External data is refused (no external-data directory is named, section 5).
#pragma once

#include <string>

#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"

namespace onemodel::onnx {

// Throws ModelError with field paths rooted at `TensorProto`; the tensor's data is a view
// into `bytes` (kept alive through its owner) or owns its converted typed-field values.
IrTensor parse_tensor_bytes(const ByteView& bytes, const std::string& input_name, int max_nesting = 128);

}  // namespace onemodel::onnx
