#include "core/onnx/tensor_entry.hpp"

#include <optional>

#include "core/onnx/external_data.hpp"
#include "core/onnx/import_context.hpp"
#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/wire_reader.hpp"

namespace onemodel::onnx {

IrTensor parse_tensor_bytes(const ByteView& bytes, const std::string& input_name, int max_nesting) {
  pb::ParseContext pctx(bytes, input_name, "TensorProto", max_nesting);
  // spec/onnx-import.md section 5: bytes without a named directory refuse external data.
  ExternalDataStore external(std::nullopt);
  ImportContext ctx{pctx, external};
  pb::WireReader reader(pctx, 0, bytes.size);
  return parse_tensor(ctx, reader);
}

}  // namespace onemodel::onnx
