#include "core/onnx/value_entry.hpp"

#include <optional>
#include <stdexcept>

#include "core/onnx/external_data.hpp"
#include "core/onnx/import_context.hpp"
#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/field_values.hpp"
#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/wire_reader.hpp"
#include "onemodel/dtype.hpp"

namespace onemodel::onnx {

namespace {

const char* wire_name(pb::WireType wire) {
  switch (wire) {
    case pb::WireType::Varint: return "varint";
    case pb::WireType::Fixed64: return "64-bit";
    case pb::WireType::LengthDelimited: return "length-delimited";
    default: return "32-bit";
  }
}

// Unlike the model's messages (spec/onnx-import.md section 1 rule 7), a field of SequenceProto or
// OptionalProto that arrives with a wire type other than its own is refused, not skipped: skipping
// tensor_values or tensor_value would change the value under test (a sequence one element short,
// an optional read as empty) and turn a broken data file into a verdict on the engine. The tensors
// inside still follow the TensorProto rules unchanged.
void expect_wire(pb::ParseContext& ctx, const pb::WireField& f, pb::WireType wire, const char* name) {
  if (f.wire == wire) return;
  pb::PathScope scope(ctx, name);
  ctx.fail(ModelErrorKind::Malformed,
           std::string("field ") + std::to_string(f.number) + " arrives as " + wire_name(f.wire) + ", it is " +
               wire_name(wire),
           f.key_offset);
}

const char* elem_kind_text(std::int32_t elem_type) {
  switch (elem_type) {
    case kValueElemTensor: return "tensors";
    case kValueElemSparseTensor: return "sparse tensors";
    case kValueElemSequence: return "sequences";
    case kValueElemMap: return "maps";
    case kValueElemOptional: return "optionals";
    default: return "values of an unknown kind";
  }
}

// The value fields 3..7, which SequenceProto and OptionalProto number alike.
const char* sequence_field_name(std::uint32_t number) {
  switch (number) {
    case 3: return "tensor_values";
    case 4: return "sparse_tensor_values";
    case 5: return "sequence_values";
    case 6: return "map_values";
    default: return "optional_values";
  }
}
const char* optional_field_name(std::uint32_t number) {
  switch (number) {
    case 3: return "tensor_value";
    case 4: return "sparse_tensor_value";
    case 5: return "sequence_value";
    case 6: return "map_value";
    default: return "optional_value";
  }
}

// The field number holding values of `elem_type` (onnx.proto: elem_type k is in field k + 2).
std::uint32_t field_of(std::int32_t elem_type) { return static_cast<std::uint32_t>(elem_type) + 2; }

// The fields of one SequenceProto or OptionalProto as written. Value fields are parsed only after
// elem_type has said what they must be, so a map or a broken elem_type is reported as such, not
// as whatever its payload happens to contain.
struct ContainerFields {
  std::string name;
  std::int32_t elem_type = kValueElemUndefined;
  std::optional<pb::WireField> elem_type_field;
  std::vector<pb::WireField> values;  // fields 3..7 in order, their payloads already framed
};

ContainerFields read_container_fields(pb::ParseContext& ctx, pb::WireReader& r, const char* (*field_name)(std::uint32_t)) {
  ContainerFields c;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        expect_wire(ctx, f, pb::WireType::LengthDelimited, "name");
        pb::get_string(ctx, f, "name", c.name);
        break;
      case 2:
        expect_wire(ctx, f, pb::WireType::Varint, "elem_type");
        pb::get_int32(f, c.elem_type);  // last one wins (rule 8)
        c.elem_type_field = f;
        break;
      case 3: case 4: case 5: case 6: case 7:
        expect_wire(ctx, f, pb::WireType::LengthDelimited, field_name(f.number));
        c.values.push_back(f);
        break;
      default: break;  // unknown fields are skipped (spec/onnx-import.md section 1 rule 7)
    }
  }
  return c;
}

// elem_type must name a kind (InvalidModel otherwise); `allow_undefined` for OptionalProto, where
// 0 means the optional holds nothing. Kinds other than tensors (and, for an optional, sequences)
// are Unsupported: the library's values do not hold them.
void check_elem_type(pb::ParseContext& ctx, const ContainerFields& c, std::size_t message_offset, bool allow_undefined,
                     bool allow_sequence, const char* what) {
  const std::size_t offset = c.elem_type_field ? c.elem_type_field->key_offset : message_offset;
  pb::PathScope scope(ctx, "elem_type");
  if (c.elem_type == kValueElemUndefined) {
    if (allow_undefined) return;
    ctx.fail(ModelErrorKind::InvalidModel, std::string(what) + " does not say what it holds (elem_type 0)", offset);
  }
  if (c.elem_type < kValueElemTensor || c.elem_type > kValueElemOptional) {
    ctx.fail(ModelErrorKind::InvalidModel, "unknown elem_type " + std::to_string(c.elem_type), offset);
  }
  if (c.elem_type == kValueElemTensor || (allow_sequence && c.elem_type == kValueElemSequence)) return;
  ctx.fail(ModelErrorKind::Unsupported,
           std::string(what) + " of " + elem_kind_text(c.elem_type) + " is not a value this library holds", offset);
}

// Every value field must be the one elem_type names (onnx.proto fills only that one; a file with
// another is contradictory, and reading only the named one would hide the contradiction).
void check_value_fields(pb::ParseContext& ctx, const ContainerFields& c, const char* (*field_name)(std::uint32_t),
                        const char* what) {
  for (const pb::WireField& f : c.values) {
    if (c.elem_type != kValueElemUndefined && f.number == field_of(c.elem_type)) continue;
    pb::PathScope scope(ctx, field_name(f.number));
    ctx.fail(ModelErrorKind::InvalidModel,
             std::string(what) + " whose elem_type is " + std::to_string(c.elem_type) + " holds " + field_name(f.number),
             f.key_offset);
  }
}

IrValue read_sequence(ImportContext& ctx, pb::WireReader& r) {
  const ContainerFields c = read_container_fields(ctx.pb, r, sequence_field_name);
  check_elem_type(ctx.pb, c, r.begin(), false, false, "a sequence");
  check_value_fields(ctx.pb, c, sequence_field_name, "a sequence");
  IrValue v;
  v.kind = ValueMessage::Sequence;
  v.name = c.name;
  for (const pb::WireField& f : c.values) {
    const auto index = static_cast<std::int64_t>(v.elements.size());
    pb::read_message(ctx.pb, f, "tensor_values", index, [&](pb::WireReader& sub) {
      v.elements.push_back(parse_tensor(ctx, sub));
      // onnx.proto: the elements of a sequence have one type (and include/onemodel/value.hpp
      // holds sequences of one element type).
      if (index > 0 && v.elements.back().data_type != v.elements.front().data_type) {
        pb::PathScope scope(ctx.pb, "data_type");
        ctx.pb.fail(ModelErrorKind::InvalidModel,
                    "element " + std::to_string(index) + " is " + std::string(onnx_type_name(v.elements.back().data_type)) +
                        ", element 0 is " + std::string(onnx_type_name(v.elements.front().data_type)),
                    sub.begin());
      }
    });
  }
  return v;
}

IrValue read_optional(ImportContext& ctx, pb::WireReader& r) {
  const ContainerFields c = read_container_fields(ctx.pb, r, optional_field_name);
  check_elem_type(ctx.pb, c, r.begin(), true, true, "an optional");
  check_value_fields(ctx.pb, c, optional_field_name, "an optional");
  IrValue v;
  v.kind = ValueMessage::Optional;
  v.name = c.name;
  v.optional_of = c.elem_type;
  if (c.values.empty()) return v;  // holds nothing (elem_type 0, or a kind with its field absent)
  // A singular message field written twice takes the last message (spec/onnx-import.md section 1
  // rule 8).
  const pb::WireField& f = c.values.back();
  IrValue content;
  if (c.elem_type == kValueElemTensor) {
    pb::read_message(ctx.pb, f, "tensor_value", -1, [&](pb::WireReader& sub) { content.tensor = parse_tensor(ctx, sub); });
  } else {
    pb::read_message(ctx.pb, f, "sequence_value", -1, [&](pb::WireReader& sub) { content = read_sequence(ctx, sub); });
  }
  v.content.push_back(std::move(content));
  return v;
}

const char* root_name(ValueMessage message) {
  switch (message) {
    case ValueMessage::Sequence: return "SequenceProto";
    case ValueMessage::Optional: return "OptionalProto";
    default: return "TensorProto";
  }
}

}  // namespace

IrValue parse_value_bytes(const ByteView& bytes, const std::string& input_name, ValueMessage message, int max_nesting) {
  if (max_nesting < 8 || max_nesting > 250) {
    throw std::invalid_argument("max_nesting must be 8 to 250, not " + std::to_string(max_nesting));
  }
  pb::ParseContext pctx(bytes, input_name, root_name(message), max_nesting);
  // spec/onnx-import.md section 5: bytes without a named directory refuse external data.
  ExternalDataStore external(std::nullopt);
  ImportContext ctx{pctx, external};
  pb::WireReader reader(pctx, 0, bytes.size);
  switch (message) {
    case ValueMessage::Sequence: return read_sequence(ctx, reader);
    case ValueMessage::Optional: return read_optional(ctx, reader);
    default: break;
  }
  IrValue v;
  v.tensor = parse_tensor(ctx, reader);
  v.name = v.tensor.name;
  return v;
}

std::string peek_value_name(const ByteView& bytes, const std::string& input_name, ValueMessage message) {
  pb::ParseContext pctx(bytes, input_name, root_name(message), 128);
  pb::WireReader reader(pctx, 0, bytes.size);
  const std::uint32_t name_field = message == ValueMessage::Tensor ? 8 : 1;
  std::string name;
  pb::WireField f;
  while (reader.next(f)) {
    if (f.number == name_field) pb::get_bytes(pctx, f, name);
  }
  return name;
}

}  // namespace onemodel::onnx
