// Parsers for the ONNX messages of spec/onnx-import.md section 2. Each reads the fields of one
// message from `reader` (positioned on the message payload; ctx.pb's path names the message).
#pragma once

#include "core/onnx/import_context.hpp"
#include "core/protobuf/wire_reader.hpp"
#include "onemodel/ir.hpp"

namespace onemodel::onnx {

IrModel parse_model(ImportContext& ctx, pb::WireReader& reader);
IrOpset parse_opset(ImportContext& ctx, pb::WireReader& reader);
IrFunction parse_function(ImportContext& ctx, pb::WireReader& reader);
IrGraph parse_graph(ImportContext& ctx, pb::WireReader& reader);
IrNode parse_node(ImportContext& ctx, pb::WireReader& reader);
IrAttribute parse_attribute(ImportContext& ctx, pb::WireReader& reader);
IrTensor parse_tensor(ImportContext& ctx, pb::WireReader& reader);
IrSparseTensor parse_sparse_tensor(ImportContext& ctx, pb::WireReader& reader);
IrValueInfo parse_value_info(ImportContext& ctx, pb::WireReader& reader);
IrType parse_type(ImportContext& ctx, pb::WireReader& reader);

}  // namespace onemodel::onnx
