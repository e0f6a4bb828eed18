// spec/format.md section 2 (schema) and section 3.1 (limits, error kinds and paths).
#include "core/format/manifest_reader.hpp"

#include <bit>
#include <limits>

#include "core/format/dtype_bits.hpp"
#include "core/json/base64.hpp"
#include "onemodel/error.hpp"

namespace onemodel {
namespace {

using K = ModelErrorKind;
using JK = JsonValue::Kind;

constexpr int kMaxGraphTypeNesting = 64;  // spec/format.md section 3.1

class ManifestReader {
 public:
  explicit ManifestReader(const ManifestContext& context) : ctx_(context) {}

  IrModel read_model(const JsonValue& root) {
    const std::string path = "manifest";
    expect_kind(root, JK::Object, path);
    IrModel model;
    const std::string format = read_string(root, "format", path, true);
    if (format != "onemodel") fail(K::Malformed, "format is not \"onemodel\"", path + ".format", root.find("format"));
    const std::int64_t version = read_int(root, "version", path, true);
    if (version != static_cast<std::int64_t>(ctx_.header_version)) {
      fail(K::Malformed, "manifest version differs from the header's version", path + ".version", root.find("version"));
    }
    model.ir_version = read_int(root, "ir_version", path, true);
    if (model.ir_version < 3) {
      fail(K::InvalidModel, "ir_version must be at least 3", path + ".ir_version", root.find("ir_version"));
    }
    model.producer_name = read_string(root, "producer_name", path, false);
    model.producer_version = read_string(root, "producer_version", path, false);
    model.domain = read_string(root, "domain", path, false);
    model.doc_string = read_string(root, "doc", path, false);
    model.model_version = read_int(root, "model_version", path, false);
    model.opset_imports = read_opsets(root, path);
    for_each_item(root, "metadata", path, [&](const JsonValue& entry, const std::string& entry_path) {
      expect_kind(entry, JK::Object, entry_path);
      model.metadata_props.emplace_back(read_string(entry, "key", entry_path, true),
                                        read_string(entry, "value", entry_path, true));
    });
    model.graph = read_graph(require(root, "graph", path), path + ".graph", 1);
    for_each_item(root, "functions", path, [&](const JsonValue& fn, const std::string& fn_path) {
      model.functions.push_back(read_function(fn, fn_path));
    });
    model.source_name = ctx_.input_name;
    return model;
  }

 private:
  // ---- errors and generic accessors -------------------------------------------------------

  [[noreturn]] void fail(K kind, const std::string& message, const std::string& path, const JsonValue* at) const {
    std::optional<std::uint64_t> offset;
    if (at != nullptr) offset = ctx_.manifest_offset + at->offset;
    throw ModelError(kind, message, ctx_.input_name, offset, path);
  }

  void expect_kind(const JsonValue& v, JK kind, const std::string& path) const {
    if (v.kind != kind) {
      fail(K::Malformed, std::string("expected ") + to_string(kind) + ", found " + to_string(v.kind), path, &v);
    }
  }

  const JsonValue& require(const JsonValue& obj, const char* key, const std::string& path) const {
    const JsonValue* v = obj.find(key);
    if (v == nullptr) fail(K::Malformed, std::string("missing required field `") + key + "`", path + "." + key, &obj);
    return *v;
  }

  std::int64_t as_int(const JsonValue& v, const std::string& path) const {
    expect_kind(v, JK::Number, path);
    if (v.number_form == JsonValue::NumberForm::Decimal) {
      fail(K::Malformed, "integer written with a fraction or exponent: " + v.text, path, &v);
    }
    if (v.number_form == JsonValue::NumberForm::IntegerOutOfRange) {
      fail(K::Malformed, "integer outside the signed 64-bit range: " + v.text, path, &v);
    }
    return v.integer;
  }

  std::int32_t as_int32(const JsonValue& v, const std::string& path, K kind_if_out_of_range) const {
    const std::int64_t value = as_int(v, path);
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max()) {
      fail(kind_if_out_of_range, "code " + std::to_string(value) + " is outside the known codes", path, &v);
    }
    return static_cast<std::int32_t>(value);
  }

  // spec/format.md section 1.2: a float is the unsigned integer of its IEEE-754 bits.
  float as_float_bits(const JsonValue& v, const std::string& path) const {
    const std::int64_t bits = as_int(v, path);
    if (bits < 0 || bits > 0xFFFFFFFFLL) fail(K::Malformed, "float bits outside 0..2^32-1", path, &v);
    // __builtin_bit_cast, not std::bit_cast: emscripten's libc++ lacks it (DESIGN.md section 4).
    return __builtin_bit_cast(float, static_cast<std::uint32_t>(bits));
  }

  const std::string& as_string(const JsonValue& v, const std::string& path) const {
    expect_kind(v, JK::String, path);
    return v.text;
  }

  std::string as_bytes(const JsonValue& v, const std::string& path) const {
    auto decoded = decode_base64(as_string(v, path));
    if (!decoded) fail(K::Malformed, "not padded standard base64", path, &v);
    return std::move(*decoded);
  }

  std::string read_string(const JsonValue& obj, const char* key, const std::string& path, bool required) const {
    const JsonValue* v = required ? &require(obj, key, path) : obj.find(key);
    if (v == nullptr) return {};
    return as_string(*v, path + "." + key);
  }

  std::int64_t read_int(const JsonValue& obj, const char* key, const std::string& path, bool required) const {
    const JsonValue* v = required ? &require(obj, key, path) : obj.find(key);
    if (v == nullptr) return 0;
    return as_int(*v, path + "." + key);
  }

  // Calls fn(item, item_path) for each element of the optional array `key`.
  template <typename Fn>
  void for_each_item(const JsonValue& obj, const char* key, const std::string& path, Fn&& fn) const {
    const JsonValue* v = obj.find(key);
    if (v == nullptr) return;
    const std::string array_path = path + "." + key;
    expect_kind(*v, JK::Array, array_path);
    for (std::size_t i = 0; i < v->items.size(); ++i) {
      fn(v->items[i], array_path + "[" + std::to_string(i) + "]");
    }
  }

  std::vector<std::string> read_string_array(const JsonValue& obj, const char* key, const std::string& path) const {
    std::vector<std::string> out;
    for_each_item(obj, key, path, [&](const JsonValue& item, const std::string& item_path) {
      out.push_back(as_string(item, item_path));
    });
    return out;
  }

  std::vector<std::int64_t> read_dims(const JsonValue& dims, const std::string& path) const {
    expect_kind(dims, JK::Array, path);
    std::vector<std::int64_t> out;
    out.reserve(dims.items.size());
    for (std::size_t i = 0; i < dims.items.size(); ++i) {
      const std::string item_path = path + "[" + std::to_string(i) + "]";
      const std::int64_t d = as_int(dims.items[i], item_path);
      if (d < 0) fail(K::InvalidModel, "negative dimension " + std::to_string(d), item_path, &dims.items[i]);
      out.push_back(d);
    }
    return out;
  }

  void check_nesting(int depth, const std::string& path, const JsonValue& at) const {
    if (depth > kMaxGraphTypeNesting) {
      fail(K::Unsupported, "graphs and types nested more than 64 levels deep", path, &at);
    }
  }

  // ---- schema ------------------------------------------------------------------------------

  std::vector<IrOpset> read_opsets(const JsonValue& obj, const std::string& path) const {
    std::vector<IrOpset> out;
    for_each_item(obj, "opsets", path, [&](const JsonValue& entry, const std::string& entry_path) {
      expect_kind(entry, JK::Object, entry_path);
      IrOpset opset;
      opset.domain = read_string(entry, "domain", entry_path, false);
      opset.version = read_int(entry, "version", entry_path, true);
      out.push_back(std::move(opset));
    });
    return out;
  }

  // `depth` counts the graphs and types open including this graph (spec/format.md section 3.1).
  IrGraph read_graph(const JsonValue& v, const std::string& path, int depth) const {
    expect_kind(v, JK::Object, path);
    check_nesting(depth, path, v);
    IrGraph graph;
    graph.name = read_string(v, "name", path, false);
    graph.doc_string = read_string(v, "doc", path, false);
    const auto typed_names = [&](const char* key, std::vector<IrValueInfo>& out) {
      for_each_item(v, key, path, [&](const JsonValue& item, const std::string& item_path) {
        expect_kind(item, JK::Object, item_path);
        IrValueInfo info;
        info.name = read_string(item, "name", item_path, true);
        if (const JsonValue* type = item.find("type")) info.type = read_type(*type, item_path + ".type", depth + 1);
        out.push_back(std::move(info));
      });
    };
    typed_names("inputs", graph.inputs);
    typed_names("outputs", graph.outputs);
    typed_names("value_info", graph.value_info);
    for_each_item(v, "initializers", path, [&](const JsonValue& item, const std::string& item_path) {
      // spec/format.md section 2.5: `compact` only on the top-level graph's initializers.
      graph.initializers.push_back(read_tensor(item, item_path, depth == 1));
    });
    for_each_item(v, "sparse_initializers", path, [&](const JsonValue& item, const std::string& item_path) {
      graph.sparse_initializers.push_back(read_sparse(item, item_path));
    });
    for_each_item(v, "nodes", path, [&](const JsonValue& item, const std::string& item_path) {
      graph.nodes.push_back(read_node(item, item_path, depth));
    });
    return graph;
  }

  IrType read_type(const JsonValue& v, const std::string& path, int depth) const {
    expect_kind(v, JK::Object, path);
    check_nesting(depth, path, v);
    IrType type;
    const std::string kind = read_string(v, "kind", path, true);
    if (kind == "tensor" || kind == "sparse_tensor") {
      type.kind = kind == "tensor" ? IrType::Kind::Tensor : IrType::Kind::SparseTensor;
      type.elem_type = as_int32(require(v, "elem", path), path + ".elem", K::Unsupported);
      if (const JsonValue* shape = v.find("shape")) {
        const std::string shape_path = path + ".shape";
        expect_kind(*shape, JK::Array, shape_path);
        type.has_shape = true;
        for (std::size_t i = 0; i < shape->items.size(); ++i) {
          const JsonValue& entry = shape->items[i];
          const std::string entry_path = shape_path + "[" + std::to_string(i) + "]";
          IrDim dim;
          if (entry.kind == JK::Null) {
            dim.kind = IrDim::Kind::Unknown;
          } else if (entry.kind == JK::String) {
            dim.kind = IrDim::Kind::Param;
            dim.param = entry.text;
          } else if (entry.kind == JK::Number) {
            dim.kind = IrDim::Kind::Value;
            dim.value = as_int(entry, entry_path);
            if (dim.value < 0) fail(K::InvalidModel, "negative dimension", entry_path, &entry);
          } else {
            fail(K::Malformed, std::string("a dimension is an integer, a string or null, found ") +
                                   to_string(entry.kind), entry_path, &entry);
          }
          type.shape.push_back(std::move(dim));
        }
      }
    } else if (kind == "sequence" || kind == "optional") {
      type.kind = kind == "sequence" ? IrType::Kind::Sequence : IrType::Kind::Optional;
      type.inner.push_back(read_type(require(v, "inner", path), path + ".inner", depth + 1));
    } else if (kind == "map") {
      type.kind = IrType::Kind::Map;
      type.elem_type = as_int32(require(v, "key", path), path + ".key", K::Unsupported);
      type.inner.push_back(read_type(require(v, "inner", path), path + ".inner", depth + 1));
    } else if (kind == "opaque") {
      type.kind = IrType::Kind::Opaque;
      type.opaque_domain = read_string(v, "domain", path, false);
      type.opaque_name = read_string(v, "name", path, false);
    } else {
      fail(K::Unsupported, "unknown type kind \"" + kind + "\"", path + ".kind", v.find("kind"));
    }
    return type;
  }

  IrNode read_node(const JsonValue& v, const std::string& path, int depth) const {
    expect_kind(v, JK::Object, path);
    IrNode node;
    node.name = read_string(v, "name", path, false);
    node.op_type = read_string(v, "op", path, true);
    node.domain = read_string(v, "domain", path, false);
    node.overload = read_string(v, "overload", path, false);
    node.doc_string = read_string(v, "doc", path, false);
    node.inputs = read_string_array(v, "inputs", path);
    node.outputs = read_string_array(v, "outputs", path);
    for_each_item(v, "attributes", path, [&](const JsonValue& item, const std::string& item_path) {
      node.attributes.push_back(read_attribute(item, item_path, depth));
    });
    return node;
  }

  // `depth` is the nesting of the graph holding the node: a graph value is one level deeper.
  IrAttribute read_attribute(const JsonValue& v, const std::string& path, int depth) const {
    expect_kind(v, JK::Object, path);
    IrAttribute attr;
    attr.name = read_string(v, "name", path, true);
    const JsonValue& type_value = require(v, "type", path);
    const std::int32_t code = as_int32(type_value, path + ".type", K::Unsupported);
    if (code < 0 || code > 14) {
      fail(K::Unsupported, "unknown attribute type " + std::to_string(code), path + ".type", &type_value);
    }
    attr.type = static_cast<AttrType>(code);
    attr.doc_string = read_string(v, "doc", path, false);
    attr.ref_attr_name = read_string(v, "ref", path, false);
    if (!attr.ref_attr_name.empty()) return attr;  // a reference carries no value (section 2.4)
    if (attr.type == AttrType::Undefined) {
      fail(K::InvalidModel, "attribute type 0 (undefined) without `ref`", path + ".type", &type_value);
    }
    const JsonValue& value = require(v, "value", path);
    const std::string vp = path + ".value";
    const auto each = [&](auto&& fn) {
      expect_kind(value, JK::Array, vp);
      for (std::size_t i = 0; i < value.items.size(); ++i) fn(value.items[i], vp + "[" + std::to_string(i) + "]");
    };
    switch (attr.type) {
      case AttrType::Float: attr.f = as_float_bits(value, vp); break;
      case AttrType::Int: attr.i = as_int(value, vp); break;
      case AttrType::String: attr.s = as_bytes(value, vp); break;
      case AttrType::Tensor: attr.tensors.push_back(read_tensor(value, vp)); break;
      case AttrType::Graph: attr.graphs.push_back(read_graph(value, vp, depth + 1)); break;
      case AttrType::Floats:
        each([&](const JsonValue& item, const std::string& p) { attr.floats.push_back(as_float_bits(item, p)); });
        break;
      case AttrType::Ints:
        each([&](const JsonValue& item, const std::string& p) { attr.ints.push_back(as_int(item, p)); });
        break;
      case AttrType::Strings:
        each([&](const JsonValue& item, const std::string& p) { attr.strings.push_back(as_bytes(item, p)); });
        break;
      case AttrType::Tensors:
        each([&](const JsonValue& item, const std::string& p) { attr.tensors.push_back(read_tensor(item, p)); });
        break;
      case AttrType::Graphs:
        each([&](const JsonValue& item, const std::string& p) {
          attr.graphs.push_back(read_graph(item, p, depth + 1));
        });
        break;
      case AttrType::SparseTensor: attr.sparse_tensors.push_back(read_sparse(value, vp)); break;
      case AttrType::SparseTensors:
        each([&](const JsonValue& item, const std::string& p) { attr.sparse_tensors.push_back(read_sparse(item, p)); });
        break;
      case AttrType::TypeProto: attr.type_protos.push_back(read_type(value, vp, depth + 1)); break;
      case AttrType::TypeProtos:
        each([&](const JsonValue& item, const std::string& p) {
          attr.type_protos.push_back(read_type(item, p, depth + 1));
        });
        break;
      case AttrType::Undefined: break;
    }
    return attr;
  }

  // spec/format.md section 2.5: every size is checked from dims and dtype before any slice.
  IrTensor read_tensor(const JsonValue& v, const std::string& path, bool may_be_compact = false) const {
    expect_kind(v, JK::Object, path);
    IrTensor tensor;
    tensor.name = read_string(v, "name", path, false);
    // spec/format.md section 2.5, `compact`: 0 or 1; 1 only on a top-level initializer (what it
    // may mark there is checked after resolution, check_compact_marks).
    if (const JsonValue* compact = v.find("compact")) {
      const std::int64_t mark = as_int(*compact, path + ".compact");
      if (mark != 0 && mark != 1) fail(K::InvalidModel, "compact must be 0 or 1", path + ".compact", compact);
      if (mark == 1 && !may_be_compact) {
        fail(K::InvalidModel, "only an initializer of the main graph can be marked compact", path + ".compact", compact);
      }
      tensor.compact = mark == 1;
    }
    const JsonValue& dtype_value = require(v, "dtype", path);
    tensor.data_type = as_int32(dtype_value, path + ".dtype", K::Unsupported);
    const std::optional<int> bits = dtype_bits(tensor.data_type);
    if (!bits && tensor.data_type != onnx_type::kString) {
      fail(K::Unsupported, "unknown or undefined dtype " + std::to_string(tensor.data_type), path + ".dtype",
           &dtype_value);
    }
    const JsonValue& dims_value = require(v, "dims", path);
    tensor.dims = read_dims(dims_value, path + ".dims");
    const ElementCount count = element_count(tensor.dims);
    if (count.problem == CountProblem::TooMany) {
      fail(K::InvalidModel, "element count reaches 2^60", path + ".dims", &dims_value);
    }
    tensor.doc_string = read_string(v, "doc", path, false);

    if (tensor.data_type == onnx_type::kString) {
      const JsonValue& strings = require(v, "strings", path);
      const std::string strings_path = path + ".strings";
      expect_kind(strings, JK::Array, strings_path);
      if (strings.items.size() != count.count) {
        fail(K::InvalidModel,
             "string tensor has " + std::to_string(strings.items.size()) + " strings for " +
                 std::to_string(count.count) + " elements",
             strings_path, &strings);
      }
      tensor.strings.reserve(strings.items.size());
      for (std::size_t i = 0; i < strings.items.size(); ++i) {
        tensor.strings.push_back(as_bytes(strings.items[i], strings_path + "[" + std::to_string(i) + "]"));
      }
      return tensor;
    }

    const std::uint64_t expected = packed_byte_length(count.count, *bits);
    if (expected > kMaxTensorBytes) {
      fail(K::Unsupported, "tensor of " + std::to_string(expected) + " bytes exceeds 2^31-1 bytes", path + ".dims",
           &dims_value);
    }
    const JsonValue& data = require(v, "data", path);
    const std::string data_path = path + ".data";
    expect_kind(data, JK::Object, data_path);
    const JsonValue& offset_value = require(data, "offset", data_path);
    const JsonValue& length_value = require(data, "length", data_path);
    const std::int64_t offset = as_int(offset_value, data_path + ".offset");
    const std::int64_t length = as_int(length_value, data_path + ".length");
    if (offset < 0) fail(K::Malformed, "negative data offset", data_path + ".offset", &offset_value);
    if (length < 0) fail(K::Malformed, "negative data length", data_path + ".length", &length_value);
    const auto u_offset = static_cast<std::uint64_t>(offset);
    const auto u_length = static_cast<std::uint64_t>(length);
    const std::uint64_t data_length = ctx_.data_region.size;
    // Both are below 2^63, so the sum cannot wrap in 64 bits.
    if (u_offset > data_length || u_length > data_length - u_offset) {
      fail(K::Malformed,
           "tensor bytes [" + std::to_string(u_offset) + ", +" + std::to_string(u_length) +
               ") lie outside the data region of " + std::to_string(data_length) + " bytes",
           data_path, &data);
    }
    if (u_length > 0 && u_offset % 64 != 0) {
      fail(K::Malformed, "tensor offset " + std::to_string(u_offset) + " is not a multiple of 64",
           data_path + ".offset", &offset_value);
    }
    if (u_length != expected) {
      fail(K::InvalidModel,
           "data length " + std::to_string(u_length) + " does not match dims and dtype (" + std::to_string(expected) +
               " bytes)",
           data_path + ".length", &length_value);
    }
    if (u_length > 0) tensor.data = ctx_.data_region.slice(static_cast<std::size_t>(u_offset), static_cast<std::size_t>(u_length));
    return tensor;
  }

  IrSparseTensor read_sparse(const JsonValue& v, const std::string& path) const {
    expect_kind(v, JK::Object, path);
    IrSparseTensor sparse;
    sparse.values = read_tensor(require(v, "values", path), path + ".values");
    sparse.indices = read_tensor(require(v, "indices", path), path + ".indices");
    if (const JsonValue* dims = v.find("dims")) sparse.dims = read_dims(*dims, path + ".dims");
    return sparse;
  }

  IrFunction read_function(const JsonValue& v, const std::string& path) const {
    expect_kind(v, JK::Object, path);
    IrFunction fn;
    fn.name = read_string(v, "name", path, false);
    fn.domain = read_string(v, "domain", path, false);
    fn.overload = read_string(v, "overload", path, false);
    fn.doc_string = read_string(v, "doc", path, false);
    fn.inputs = read_string_array(v, "inputs", path);
    fn.outputs = read_string_array(v, "outputs", path);
    fn.attribute_names = read_string_array(v, "attribute_names", path);
    // A function body is not a graph: its attributes' graphs start at nesting level 1.
    for_each_item(v, "attribute_defaults", path, [&](const JsonValue& item, const std::string& item_path) {
      fn.attribute_defaults.push_back(read_attribute(item, item_path, 0));
    });
    for_each_item(v, "nodes", path, [&](const JsonValue& item, const std::string& item_path) {
      fn.nodes.push_back(read_node(item, item_path, 0));
    });
    fn.opset_imports = read_opsets(v, path);
    return fn;
  }

  const ManifestContext& ctx_;
};

}  // namespace

IrModel read_manifest(const JsonValue& root, const ManifestContext& context) {
  ManifestReader reader(context);
  return reader.read_model(root);
}

}  // namespace onemodel
