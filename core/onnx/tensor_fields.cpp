#include "core/onnx/tensor_fields.hpp"

#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

namespace {
// StringStringEntryProto: key 1, value 2.
std::pair<std::string, std::string> read_entry(pb::ParseContext& ctx, pb::WireReader& r) {
  std::pair<std::string, std::string> entry;
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) pb::get_string(ctx, f, "key", entry.first);
    else if (f.number == 2) pb::get_string(ctx, f, "value", entry.second);
  }
  return entry;
}
}  // namespace

// spec/onnx-import.md section 2: TensorProto fields 1..14; others skipped.
TensorFields read_tensor_fields(pb::ParseContext& ctx, pb::WireReader& r) {
  TensorFields t;
  t.offset = r.begin();
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1: pb::append_varints(ctx, f, "dims", t.dims); break;
      case 2: pb::get_int32(f, t.data_type); break;
      case 3:
        if (f.wire == pb::WireType::LengthDelimited) t.has_segment = true;
        break;
      case 4: pb::append_fixed32(ctx, f, "float_data", t.float_data); break;
      case 5: pb::append_varints(ctx, f, "int32_data", t.int32_data); break;
      case 6: {
        std::string s;
        if (pb::get_bytes(ctx, f, s)) t.string_data.push_back(std::move(s));
        break;
      }
      case 7: pb::append_varints(ctx, f, "int64_data", t.int64_data); break;
      case 8: pb::get_string(ctx, f, "name", t.name); break;
      case 9:
        if (pb::get_view(ctx, f, t.raw_data)) t.has_raw_data = true;
        break;
      case 10: pb::append_fixed64(ctx, f, "double_data", t.double_data); break;
      case 11: pb::append_varints(ctx, f, "uint64_data", t.uint64_data); break;
      case 12: pb::get_string(ctx, f, "doc_string", t.doc_string); break;
      case 13:
        pb::read_message(ctx, f, "external_data", static_cast<std::int64_t>(t.external_data.size()),
                         [&](pb::WireReader& sub) { t.external_data.push_back(read_entry(ctx, sub)); });
        break;
      case 14: pb::get_int32(f, t.data_location); break;
      default: break;  // unknown fields are skipped
    }
  }
  return t;
}

}  // namespace onemodel::onnx
