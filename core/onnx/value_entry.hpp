// One backend-test data file read on its own as the value it holds (spec/conformance.md section 1):
// a TensorProto, a SequenceProto or an OptionalProto (onnx.proto). Nothing in the bytes says which
// message they are: the caller decides from the model's declared type of the input or output the
// file is matched to, as the ONNX backend runner does (onnx/backend/test/runner, _load_proto).
//
// Only what the library's values hold (include/onemodel/value.hpp) is read: a tensor, a sequence
// of tensors, an optional holding a tensor, a sequence of tensors or nothing. A sequence or an
// optional of sparse tensors, maps, sequences (nested) or optionals is ModelError(Unsupported), so
// the conformance runner can tell a gap from a broken file (spec/conformance.md section 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"

namespace onemodel::onnx {

enum class ValueMessage : std::uint8_t { Tensor, Sequence, Optional };

// The SequenceProto.elem_type / OptionalProto.elem_type codes of onnx.proto.
inline constexpr std::int32_t kValueElemUndefined = 0;  // OptionalProto only: holds nothing
inline constexpr std::int32_t kValueElemTensor = 1;
inline constexpr std::int32_t kValueElemSparseTensor = 2;
inline constexpr std::int32_t kValueElemSequence = 3;
inline constexpr std::int32_t kValueElemMap = 4;
inline constexpr std::int32_t kValueElemOptional = 5;

struct IrValue {
  ValueMessage kind = ValueMessage::Tensor;
  std::string name;               // TensorProto.name (8), SequenceProto.name / OptionalProto.name (1)
  IrTensor tensor;                // Tensor
  std::vector<IrTensor> elements; // Sequence: tensor_values, in order (may be empty)
  // Optional: elem_type as written, kValueElemTensor or kValueElemSequence, or
  // kValueElemUndefined for an optional that holds nothing and does not say what it would hold
  // (the declared type says it then).
  std::int32_t optional_of = kValueElemUndefined;
  // Optional: the content, a Tensor or a Sequence value; empty when the optional holds nothing.
  std::vector<IrValue> content;
};

// Reads `bytes` as `message`. Throws ModelError with field paths rooted at the message's name:
// Malformed for broken wire data (every length is checked against its range by the protobuf
// reader, spec/onnx-import.md section 1), InvalidModel for a message that contradicts itself
// (elem_type undefined or unknown, values of another kind than elem_type names), Unsupported for
// values the library does not hold (above). Tensors follow the TensorProto rules of
// spec/onnx-import.md sections 2 and 3 and view `bytes` (external data refused, section 5).
// `max_nesting` as spec/onnx-import.md section 1 rule 9 (8 to 250, else std::invalid_argument).
IrValue parse_value_bytes(const ByteView& bytes, const std::string& input_name, ValueMessage message,
                          int max_nesting = 128);

// The message's name field read as `message` would have it (TensorProto field 8, the others field
// 1), last one wins; empty when absent or written with another wire type. Only the top-level
// framing is checked (ModelError(Malformed)); the name is not decoded (a file that is not this
// message may give bytes that are no name). For matching files to inputs by name before the
// declared type of the input tells which message the file is.
std::string peek_value_name(const ByteView& bytes, const std::string& input_name, ValueMessage message);

}  // namespace onemodel::onnx
