#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

namespace {

// TensorShapeProto.Dimension: dim_value 1, dim_param 2; the last one set wins.
IrDim parse_dim(ImportContext& ctx, pb::WireReader& r) {
  IrDim d;
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) {
      std::int64_t v = 0;
      if (pb::get_int64(f, v)) {
        d = IrDim{IrDim::Kind::Value, v, {}};
      }
    } else if (f.number == 2) {
      std::string p;
      if (pb::get_string(ctx.pb, f, "dim_param", p)) d = IrDim{IrDim::Kind::Param, 0, std::move(p)};
    }
  }
  return d;
}

// TensorShapeProto: dim 1.
std::vector<IrDim> parse_shape(ImportContext& ctx, pb::WireReader& r) {
  std::vector<IrDim> dims;
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) {
      pb::read_message(ctx.pb, f, "dim", static_cast<std::int64_t>(dims.size()),
                       [&](pb::WireReader& sub) { dims.push_back(parse_dim(ctx, sub)); });
    }
  }
  return dims;
}

// TypeProto.Tensor and TypeProto.SparseTensor: elem_type 1, shape 2.
void parse_tensor_type(ImportContext& ctx, pb::WireReader& r, IrType& t) {
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) {
      pb::get_int32(f, t.elem_type);
    } else if (f.number == 2) {
      // spec/onnx-import.md section 2: a shape field, even empty, means a known rank.
      pb::read_message(ctx.pb, f, "shape", -1, [&](pb::WireReader& sub) {
        t.shape = parse_shape(ctx, sub);
        t.has_shape = true;
      });
    }
  }
}

// Sequence and Optional: elem_type 1 (a TypeProto). Map: key_type 1, value_type 2.
void parse_wrapped_type(ImportContext& ctx, pb::WireReader& r, IrType& t, bool is_map) {
  t.inner.assign(1, IrType{});
  pb::WireField f;
  while (r.next(f)) {
    if (is_map && f.number == 1) {
      pb::get_int32(f, t.elem_type);
    } else if (f.number == (is_map ? 2u : 1u)) {
      pb::read_message(ctx.pb, f, is_map ? "value_type" : "elem_type", -1,
                       [&](pb::WireReader& sub) { t.inner[0] = parse_type(ctx, sub); });
    }
  }
}

// TypeProto.Opaque: domain 1, name 2.
void parse_opaque_type(ImportContext& ctx, pb::WireReader& r, IrType& t) {
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) pb::get_string(ctx.pb, f, "domain", t.opaque_domain);
    else if (f.number == 2) pb::get_string(ctx.pb, f, "name", t.opaque_name);
  }
}

}  // namespace

// spec/onnx-import.md section 2: TypeProto's value is a oneof; the last member seen wins and a
// TypeProto with no member is "no type".
IrType parse_type(ImportContext& ctx, pb::WireReader& r) {
  IrType t;
  pb::WireField f;
  while (r.next(f)) {
    IrType next;
    bool read = false;
    switch (f.number) {
      case 1:
        next.kind = IrType::Kind::Tensor;
        read = pb::read_message(ctx.pb, f, "tensor_type", -1, [&](pb::WireReader& sub) { parse_tensor_type(ctx, sub, next); });
        break;
      case 8:
        next.kind = IrType::Kind::SparseTensor;
        read = pb::read_message(ctx.pb, f, "sparse_tensor_type", -1, [&](pb::WireReader& sub) { parse_tensor_type(ctx, sub, next); });
        break;
      case 4:
        next.kind = IrType::Kind::Sequence;
        read = pb::read_message(ctx.pb, f, "sequence_type", -1, [&](pb::WireReader& sub) { parse_wrapped_type(ctx, sub, next, false); });
        break;
      case 9:
        next.kind = IrType::Kind::Optional;
        read = pb::read_message(ctx.pb, f, "optional_type", -1, [&](pb::WireReader& sub) { parse_wrapped_type(ctx, sub, next, false); });
        break;
      case 5:
        next.kind = IrType::Kind::Map;
        read = pb::read_message(ctx.pb, f, "map_type", -1, [&](pb::WireReader& sub) { parse_wrapped_type(ctx, sub, next, true); });
        break;
      case 7:
        next.kind = IrType::Kind::Opaque;
        read = pb::read_message(ctx.pb, f, "opaque_type", -1, [&](pb::WireReader& sub) { parse_opaque_type(ctx, sub, next); });
        break;
      default:
        break;
    }
    if (read) t = std::move(next);
  }
  return t;
}

// ValueInfoProto: name 1, type 2 (and doc_string 3, kept for the dump).
IrValueInfo parse_value_info(ImportContext& ctx, pb::WireReader& r) {
  IrValueInfo v;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1: pb::get_string(ctx.pb, f, "name", v.name); break;
      case 2: pb::read_message(ctx.pb, f, "type", -1, [&](pb::WireReader& sub) { v.type = parse_type(ctx, sub); }); break;
      case 3: pb::get_string(ctx.pb, f, "doc_string", v.doc_string); break;
      default: break;
    }
  }
  return v;
}

}  // namespace onemodel::onnx
