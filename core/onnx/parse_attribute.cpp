#include <cstring>

#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

namespace {

float float_from_bits(std::uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The type an attribute's set field implies (spec/onnx-import.md section 2, "Attributes"):
// f, i, s, t, g, sparse_tensor, tp, then floats, ints, strings, tensors, graphs,
// sparse_tensors, type_protos.
struct Presence {
  bool f = false, i = false, s = false, t = false, g = false, sparse_tensor = false, tp = false;
};

AttrType infer_type(const Presence& p, const IrAttribute& a) {
  if (p.f) return AttrType::Float;
  if (p.i) return AttrType::Int;
  if (p.s) return AttrType::String;
  if (p.t) return AttrType::Tensor;
  if (p.g) return AttrType::Graph;
  if (p.sparse_tensor) return AttrType::SparseTensor;
  if (p.tp) return AttrType::TypeProto;
  if (!a.floats.empty()) return AttrType::Floats;
  if (!a.ints.empty()) return AttrType::Ints;
  if (!a.strings.empty()) return AttrType::Strings;
  if (!a.tensors.empty()) return AttrType::Tensors;
  if (!a.graphs.empty()) return AttrType::Graphs;
  if (!a.sparse_tensors.empty()) return AttrType::SparseTensors;
  if (!a.type_protos.empty()) return AttrType::TypeProtos;
  return AttrType::Undefined;
}

template <class T>
void keep_only(std::vector<T>& v, bool keep) {
  if (!keep) v.clear();
}

}  // namespace

// AttributeProto: name 1, f 2, i 3, s 4, t 5, g 6, floats 7, ints 8, strings 9, tensors 10,
// graphs 11, doc_string 13, tp 14, type_protos 15, type 20, ref_attr_name 21,
// sparse_tensor 22, sparse_tensors 23.
IrAttribute parse_attribute(ImportContext& ctx, pb::WireReader& r) {
  IrAttribute a;
  Presence p;
  std::int32_t declared = 0;
  IrTensor t;
  IrGraph g;
  IrSparseTensor st;
  IrType tp;
  std::vector<std::uint32_t> float_bits;
  std::vector<std::uint64_t> ints;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1: pb::get_string(ctx.pb, f, "name", a.name); break;
      case 2: p.f = pb::get_float(f, a.f) || p.f; break;
      case 3: p.i = pb::get_int64(f, a.i) || p.i; break;
      case 4: p.s = pb::get_bytes(ctx.pb, f, a.s) || p.s; break;
      case 5: p.t = pb::read_message(ctx.pb, f, "t", -1, [&](pb::WireReader& sub) { t = parse_tensor(ctx, sub); }) || p.t; break;
      case 6: p.g = pb::read_message(ctx.pb, f, "g", -1, [&](pb::WireReader& sub) { g = parse_graph(ctx, sub); }) || p.g; break;
      case 7: pb::append_fixed32(ctx.pb, f, "floats", float_bits); break;
      case 8: pb::append_varints(ctx.pb, f, "ints", ints); break;
      case 9: {
        std::string s;
        if (pb::get_bytes(ctx.pb, f, s)) a.strings.push_back(std::move(s));
        break;
      }
      case 10:
        pb::read_message(ctx.pb, f, "tensors", static_cast<std::int64_t>(a.tensors.size()),
                         [&](pb::WireReader& sub) { a.tensors.push_back(parse_tensor(ctx, sub)); });
        break;
      case 11:
        pb::read_message(ctx.pb, f, "graphs", static_cast<std::int64_t>(a.graphs.size()),
                         [&](pb::WireReader& sub) { a.graphs.push_back(parse_graph(ctx, sub)); });
        break;
      case 13: pb::get_string(ctx.pb, f, "doc_string", a.doc_string); break;
      case 14: p.tp = pb::read_message(ctx.pb, f, "tp", -1, [&](pb::WireReader& sub) { tp = parse_type(ctx, sub); }) || p.tp; break;
      case 15:
        pb::read_message(ctx.pb, f, "type_protos", static_cast<std::int64_t>(a.type_protos.size()),
                         [&](pb::WireReader& sub) { a.type_protos.push_back(parse_type(ctx, sub)); });
        break;
      case 20: pb::get_int32(f, declared); break;
      case 21: pb::get_string(ctx.pb, f, "ref_attr_name", a.ref_attr_name); break;
      case 22:
        p.sparse_tensor = pb::read_message(ctx.pb, f, "sparse_tensor", -1,
                                           [&](pb::WireReader& sub) { st = parse_sparse_tensor(ctx, sub); }) || p.sparse_tensor;
        break;
      case 23:
        pb::read_message(ctx.pb, f, "sparse_tensors", static_cast<std::int64_t>(a.sparse_tensors.size()),
                         [&](pb::WireReader& sub) { a.sparse_tensors.push_back(parse_sparse_tensor(ctx, sub)); });
        break;
      default: break;
    }
  }
  a.floats.reserve(float_bits.size());
  for (std::uint32_t b : float_bits) a.floats.push_back(float_from_bits(b));
  a.ints.reserve(ints.size());
  for (std::uint64_t v : ints) a.ints.push_back(static_cast<std::int64_t>(v));

  // `type` is a closed enum (onnx.proto is proto2): a code outside 1..14 reads as absent.
  AttrType type = declared >= 1 && declared <= 14 ? static_cast<AttrType>(declared) : AttrType::Undefined;
  if (type == AttrType::Undefined) type = infer_type(p, a);
  a.type = type;
  const bool reference = !a.ref_attr_name.empty();
  if (type == AttrType::Undefined && !reference) {
    ctx.pb.fail(ModelErrorKind::InvalidModel, "attribute '" + a.name + "' has neither a type nor a value", r.begin());
  }

  // Keep only the field of the attribute's type; an attribute referring to a function
  // attribute (ref_attr_name) carries no value.
  const auto singular = [&](bool present, const char* field) {
    if (!present && !reference) {
      pb::PathScope scope(ctx.pb, field);
      ctx.pb.fail(ModelErrorKind::InvalidModel,
                  "attribute '" + a.name + "' has type " + std::to_string(static_cast<int>(type)) + " but no field " + field,
                  r.begin());
    }
  };
  if (type == AttrType::Tensor) singular(p.t, "t");
  if (type == AttrType::Graph) singular(p.g, "g");
  if (type == AttrType::SparseTensor) singular(p.sparse_tensor, "sparse_tensor");
  if (type == AttrType::TypeProto) singular(p.tp, "tp");
  if (reference) {
    a.f = 0;
    a.i = 0;
    a.s.clear();
    a.floats.clear();
    a.ints.clear();
    a.strings.clear();
    a.tensors.clear();
    a.graphs.clear();
    a.sparse_tensors.clear();
    a.type_protos.clear();
    return a;
  }
  if (type != AttrType::Float) a.f = 0;
  if (type != AttrType::Int) a.i = 0;
  if (type != AttrType::String) a.s.clear();
  keep_only(a.floats, type == AttrType::Floats);
  keep_only(a.ints, type == AttrType::Ints);
  keep_only(a.strings, type == AttrType::Strings);
  keep_only(a.tensors, type == AttrType::Tensors);
  keep_only(a.graphs, type == AttrType::Graphs);
  keep_only(a.sparse_tensors, type == AttrType::SparseTensors);
  keep_only(a.type_protos, type == AttrType::TypeProtos);
  if (type == AttrType::Tensor) a.tensors.assign(1, std::move(t));
  if (type == AttrType::Graph) a.graphs.push_back(std::move(g));
  if (type == AttrType::SparseTensor) a.sparse_tensors.assign(1, std::move(st));
  if (type == AttrType::TypeProto) a.type_protos.assign(1, std::move(tp));
  return a;
}

}  // namespace onemodel::onnx
