#include "core/format/manifest_writer.hpp"

#include <bit>

#include "core/format/header.hpp"
#include "core/json/base64.hpp"
#include "core/json/json_writer.hpp"
#include "core/util/utf8.hpp"
#include "onemodel/error.hpp"

namespace onemodel {
namespace {

class ManifestWriter {
 public:
  ManifestWriter(const IrModel& model, const DataLayout& layout) : model_(model), layout_(layout) {}

  std::string write() {
    // spec/format.md section 2.1, field order of the table.
    w_.begin_object();
    text("format", "onemodel");
    w_.key("version");
    w_.integer(kFormatVersion);
    w_.key("ir_version");
    w_.integer(model_.ir_version);
    text("producer_name", model_.producer_name);
    text("producer_version", model_.producer_version);
    text("domain", model_.domain);
    doc(model_.doc_string);
    w_.key("model_version");
    w_.integer(model_.model_version);
    opsets(model_.opset_imports);
    w_.key("metadata");
    w_.begin_array();
    for (const auto& [key, value] : model_.metadata_props) {
      w_.begin_object();
      text("key", key);
      text("value", value);
      w_.end_object();
    }
    w_.end_array();
    w_.key("graph");
    graph(model_.graph);
    w_.key("functions");
    w_.begin_array();
    for (const IrFunction& fn : model_.functions) function(fn);
    w_.end_array();
    w_.end_object();
    return w_.take();
  }

 private:
  void checked_string(std::string_view value) {
    if (!is_valid_utf8(value)) {
      throw ModelError(ModelErrorKind::InvalidModel, "a name or text is not valid UTF-8", model_.source_name);
    }
    w_.string(value);
  }

  void text(const char* key, std::string_view value) {
    w_.key(key);
    checked_string(value);
  }

  // spec/format.md section 4: `doc` only when non-empty.
  void doc(const std::string& value) {
    if (!value.empty()) text("doc", value);
  }

  void string_array(const char* key, const std::vector<std::string>& values) {
    w_.key(key);
    w_.begin_array();
    for (const std::string& v : values) checked_string(v);
    w_.end_array();
  }

  void int_array(const std::vector<std::int64_t>& values) {
    w_.begin_array();
    for (const std::int64_t v : values) w_.integer(v);
    w_.end_array();
  }

  void opsets(const std::vector<IrOpset>& list) {
    w_.key("opsets");
    w_.begin_array();
    for (const IrOpset& opset : list) {
      w_.begin_object();
      text("domain", opset.domain);
      w_.key("version");
      w_.integer(opset.version);
      w_.end_object();
    }
    w_.end_array();
  }

  void typed_names(const char* key, const std::vector<IrValueInfo>& list) {
    w_.key(key);
    w_.begin_array();
    for (const IrValueInfo& info : list) {
      w_.begin_object();
      text("name", info.name);
      if (info.type.kind != IrType::Kind::None) {
        w_.key("type");
        type(info.type);
      }
      w_.end_object();
    }
    w_.end_array();
  }

  // spec/format.md section 2.2.
  void graph(const IrGraph& g) {
    w_.begin_object();
    text("name", g.name);
    doc(g.doc_string);
    typed_names("inputs", g.inputs);
    typed_names("outputs", g.outputs);
    typed_names("value_info", g.value_info);
    w_.key("initializers");
    w_.begin_array();
    for (const IrTensor& t : g.initializers) tensor(t);
    w_.end_array();
    w_.key("sparse_initializers");
    w_.begin_array();
    for (const IrSparseTensor& s : g.sparse_initializers) sparse(s);
    w_.end_array();
    w_.key("nodes");
    w_.begin_array();
    for (const IrNode& n : g.nodes) node(n);
    w_.end_array();
    w_.end_object();
  }

  // spec/format.md section 2.7.
  void type(const IrType& t) {
    w_.begin_object();
    switch (t.kind) {
      case IrType::Kind::Tensor:
      case IrType::Kind::SparseTensor:
        text("kind", t.kind == IrType::Kind::Tensor ? "tensor" : "sparse_tensor");
        w_.key("elem");
        w_.integer(t.elem_type);
        if (t.has_shape) {
          w_.key("shape");
          w_.begin_array();
          for (const IrDim& d : t.shape) {
            if (d.kind == IrDim::Kind::Value) w_.integer(d.value);
            else if (d.kind == IrDim::Kind::Param) checked_string(d.param);
            else w_.null();
          }
          w_.end_array();
        }
        break;
      case IrType::Kind::Sequence:
      case IrType::Kind::Optional:
        text("kind", t.kind == IrType::Kind::Sequence ? "sequence" : "optional");
        w_.key("inner");
        inner(t);
        break;
      case IrType::Kind::Map:
        text("kind", "map");
        w_.key("key");
        w_.integer(t.elem_type);
        w_.key("inner");
        inner(t);
        break;
      case IrType::Kind::Opaque:
        text("kind", "opaque");
        text("domain", t.opaque_domain);
        text("name", t.opaque_name);
        break;
      case IrType::Kind::None:
        throw ModelError(ModelErrorKind::Unsupported, "a type without a kind cannot be written", model_.source_name);
    }
    w_.end_object();
  }

  void inner(const IrType& t) {
    if (t.inner.empty()) {
      throw ModelError(ModelErrorKind::Unsupported, "a sequence, optional or map type without its inner type",
                       model_.source_name);
    }
    type(t.inner.front());
  }

  // spec/format.md section 2.3: name, domain, overload, inputs, outputs, attributes always.
  void node(const IrNode& n) {
    w_.begin_object();
    text("name", n.name);
    text("op", n.op_type);
    text("domain", n.domain);
    text("overload", n.overload);
    doc(n.doc_string);
    string_array("inputs", n.inputs);
    string_array("outputs", n.outputs);
    attributes("attributes", n.attributes);
    w_.end_object();
  }

  void attributes(const char* key, const std::vector<IrAttribute>& list) {
    w_.key(key);
    w_.begin_array();
    for (const IrAttribute& a : list) attribute(a);
    w_.end_array();
  }

  template <typename T>
  const T& one(const std::vector<T>& values) const {
    if (values.empty()) {
      throw ModelError(ModelErrorKind::InvalidModel, "an attribute of a single-value type has no value",
                       model_.source_name);
    }
    return values.front();
  }

  // spec/format.md section 2.4.
  void attribute(const IrAttribute& a) {
    w_.begin_object();
    text("name", a.name);
    w_.key("type");
    w_.integer(static_cast<std::int64_t>(a.type));
    doc(a.doc_string);
    if (!a.ref_attr_name.empty()) {
      text("ref", a.ref_attr_name);
      w_.end_object();
      return;
    }
    w_.key("value");
    switch (a.type) {
      // __builtin_bit_cast, not std::bit_cast: emscripten's libc++ lacks it (DESIGN.md section 4).
      case AttrType::Float: w_.unsigned_integer(__builtin_bit_cast(std::uint32_t, a.f)); break;
      case AttrType::Int: w_.integer(a.i); break;
      case AttrType::String: w_.string(encode_base64(a.s)); break;
      case AttrType::Tensor: tensor(one(a.tensors)); break;
      case AttrType::Graph: graph(one(a.graphs)); break;
      case AttrType::Floats:
        w_.begin_array();
        for (const float f : a.floats) w_.unsigned_integer(__builtin_bit_cast(std::uint32_t, f));
        w_.end_array();
        break;
      case AttrType::Ints: int_array(a.ints); break;
      case AttrType::Strings:
        w_.begin_array();
        for (const std::string& s : a.strings) w_.string(encode_base64(s));
        w_.end_array();
        break;
      case AttrType::Tensors:
        w_.begin_array();
        for (const IrTensor& t : a.tensors) tensor(t);
        w_.end_array();
        break;
      case AttrType::Graphs:
        w_.begin_array();
        for (const IrGraph& g : a.graphs) graph(g);
        w_.end_array();
        break;
      case AttrType::SparseTensor: sparse(one(a.sparse_tensors)); break;
      case AttrType::SparseTensors:
        w_.begin_array();
        for (const IrSparseTensor& s : a.sparse_tensors) sparse(s);
        w_.end_array();
        break;
      case AttrType::TypeProto: type(one(a.type_protos)); break;
      case AttrType::TypeProtos:
        w_.begin_array();
        for (const IrType& t : a.type_protos) type(t);
        w_.end_array();
        break;
      case AttrType::Undefined:
        throw ModelError(ModelErrorKind::InvalidModel, "attribute `" + a.name + "` has type 0 and no ref",
                         model_.source_name);
    }
    w_.end_object();
  }

  // spec/format.md section 2.5.
  void tensor(const IrTensor& t) {
    w_.begin_object();
    text("name", t.name);
    w_.key("dtype");
    w_.integer(t.data_type);
    w_.key("dims");
    int_array(t.dims);
    doc(t.doc_string);
    // spec/format.md section 2.5: written only when set (a compact weight, spec/session.md
    // section 9), so files without compact weights are byte for byte what they were.
    if (t.compact) {
      w_.key("compact");
      w_.integer(1);
    }
    if (t.data_type == onnx_type::kString) {
      w_.key("strings");
      w_.begin_array();
      for (const std::string& s : t.strings) w_.string(encode_base64(s));
      w_.end_array();
    } else {
      const TensorPlacement& placement = layout_.placements.at(&t);
      w_.key("data");
      w_.begin_object();
      w_.key("offset");
      w_.unsigned_integer(placement.offset);
      w_.key("length");
      w_.unsigned_integer(placement.length);
      w_.end_object();
    }
    w_.end_object();
  }

  // spec/format.md section 2.6.
  void sparse(const IrSparseTensor& s) {
    w_.begin_object();
    w_.key("values");
    tensor(s.values);
    w_.key("indices");
    tensor(s.indices);
    w_.key("dims");
    int_array(s.dims);
    w_.end_object();
  }

  // spec/format.md section 2.8.
  void function(const IrFunction& fn) {
    w_.begin_object();
    text("name", fn.name);
    text("domain", fn.domain);
    text("overload", fn.overload);
    doc(fn.doc_string);
    string_array("inputs", fn.inputs);
    string_array("outputs", fn.outputs);
    string_array("attribute_names", fn.attribute_names);
    attributes("attribute_defaults", fn.attribute_defaults);
    w_.key("nodes");
    w_.begin_array();
    for (const IrNode& n : fn.nodes) node(n);
    w_.end_array();
    opsets(fn.opset_imports);
    w_.end_object();
  }

  const IrModel& model_;
  const DataLayout& layout_;
  JsonWriter w_;
};

}  // namespace

std::string write_manifest(const IrModel& model, const DataLayout& layout) {
  ManifestWriter writer(model, layout);
  return writer.write();
}

}  // namespace onemodel
