// The structural dump (spec/dump.md). Every line here has a twin in tools/onnx_dump.py, which
// writes the same text from the `onnx` package; keep the two in step with the spec, not with
// each other.
#include "onemodel/model_dump.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/util/sha256.hpp"

namespace onemodel {
namespace {

// spec/dump.md section 2: quoted bytes, printable ASCII kept, `"` and `\` escaped, the rest \xHH.
void append_str(std::string& out, std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == '"' || byte == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (byte >= 0x20 && byte <= 0x7e) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kDigits[byte >> 4]);
      out.push_back(kDigits[byte & 15]);
    }
  }
  out.push_back('"');
}

// spec/dump.md section 2: a float is its bit pattern, 8 lowercase hex digits.
void append_float(std::string& out, float value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  // __builtin_bit_cast, not std::bit_cast: emscripten's libc++ lacks it (DESIGN.md section 4).
  const auto bits = __builtin_bit_cast(std::uint32_t, value);
  for (int shift = 28; shift >= 0; shift -= 4) out.push_back(kDigits[(bits >> shift) & 15]);
}

// spec/dump.md section 2: `<len> <sha256>`.
std::string doc_fields(std::string_view doc, char separator) {
  return std::to_string(doc.size()) + separator + sha256_hex(doc);
}

std::string str(std::string_view bytes) {
  std::string out;
  append_str(out, bytes);
  return out;
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string out = "[";
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (k > 0) out.push_back(',');
    out += std::to_string(dims[k]);
  }
  out.push_back(']');
  return out;
}

// spec/dump.md section 3.
void append_type(std::string& out, const IrType& type) {
  auto inner = [&](std::size_t k) {
    if (k < type.inner.size()) {
      append_type(out, type.inner[k]);
    } else {
      out += "none";
    }
  };
  auto shape = [&]() {
    if (!type.has_shape) {
      out.push_back('*');
      return;
    }
    out.push_back('[');
    for (std::size_t k = 0; k < type.shape.size(); ++k) {
      if (k > 0) out.push_back(',');
      const IrDim& dim = type.shape[k];
      switch (dim.kind) {
        case IrDim::Kind::Value: out += std::to_string(dim.value); break;
        case IrDim::Kind::Param: append_str(out, dim.param); break;
        case IrDim::Kind::Unknown: out.push_back('?'); break;
      }
    }
    out.push_back(']');
  };
  switch (type.kind) {
    case IrType::Kind::None: out += "none"; return;
    case IrType::Kind::Tensor:
    case IrType::Kind::SparseTensor:
      out += type.kind == IrType::Kind::Tensor ? "tensor(" : "sparse_tensor(";
      out += std::to_string(type.elem_type);
      out.push_back(',');
      shape();
      out.push_back(')');
      return;
    case IrType::Kind::Sequence:
    case IrType::Kind::Optional:
      out += type.kind == IrType::Kind::Sequence ? "sequence(" : "optional(";
      inner(0);
      out.push_back(')');
      return;
    case IrType::Kind::Map:
      out += "map(" + std::to_string(type.elem_type) + ",";
      inner(0);
      out.push_back(')');
      return;
    case IrType::Kind::Opaque:
      out += "opaque(";
      append_str(out, type.opaque_domain);
      out.push_back(',');
      append_str(out, type.opaque_name);
      out.push_back(')');
      return;
  }
}

// spec/dump.md section 4: the values' byte length and SHA-256; strings as (u64 LE length, bytes).
std::string tensor_text(const IrTensor& tensor) {
  std::string out = str(tensor.name) + " dtype=" + std::to_string(tensor.data_type) +
                    " dims=" + dims_text(tensor.dims);
  Sha256 hash;
  std::uint64_t length = 0;
  if (tensor.data_type == onnx_type::kString) {
    for (const std::string& element : tensor.strings) {
      unsigned char prefix[8];
      const std::uint64_t size = element.size();
      for (int k = 0; k < 8; ++k) prefix[k] = static_cast<unsigned char>(size >> (8 * k));
      hash.update(std::string_view(reinterpret_cast<const char*>(prefix), 8));
      hash.update(element);
      length += 8 + size;
    }
  } else {
    hash.update(tensor.data.span());
    length = tensor.data.size;
  }
  out += " bytes=" + std::to_string(length) + " sha256=" + to_hex(hash.finish());
  if (!tensor.doc_string.empty()) out += " doc_string=" + doc_fields(tensor.doc_string, ':');
  return out;
}

const char* attr_type_name(std::int32_t code) {
  static constexpr const char* kNames[] = {
      "UNDEFINED", "FLOAT",   "INT",    "STRING",       "TENSOR",         "GRAPH",      "FLOATS",
      "INTS",      "STRINGS", "TENSORS", "GRAPHS",      "SPARSE_TENSOR", "SPARSE_TENSORS",
      "TYPE_PROTO", "TYPE_PROTOS"};
  if (code < 0 || code > 14) return "UNKNOWN";
  return kNames[code];
}

class Dumper {
 public:
  std::string take() { return std::move(out_); }

  void line(int level, std::string_view text) {
    out_.append(static_cast<std::size_t>(level) * 2, ' ');
    out_ += text;
    out_.push_back('\n');
  }

  void doc_line(int level, const std::string& doc) {
    if (!doc.empty()) line(level, "doc_string " + doc_fields(doc, ' '));
  }

  void names_line(int level, std::string_view keyword, const std::vector<std::string>& names) {
    std::string text(keyword);
    // Two appends, not `" " + str(name)`: g++ 12 at -O3 reports a false -Wrestrict overlap
    // (GCC bug 105329) in the temporary's insert, which -Werror turns into a Release build failure.
    for (const std::string& name : names) {
      text += ' ';
      text += str(name);
    }
    line(level, text);
  }

  void opset_line(int level, const IrOpset& opset) {
    line(level, "opset_import " + str(opset.domain) + " " + std::to_string(opset.version));
  }

  void sparse(int level, std::string_view head, const IrSparseTensor& sparse) {
    line(level, std::string(head) + " dims=" + dims_text(sparse.dims));
    line(level + 1, "values " + tensor_text(sparse.values));
    line(level + 1, "indices " + tensor_text(sparse.indices));
  }

  void value_info(int level, std::string_view keyword, std::size_t index, const IrValueInfo& info) {
    std::string text = std::string(keyword) + " " + std::to_string(index) + " " + str(info.name) + " ";
    append_type(text, info.type);
    if (!info.doc_string.empty()) text += " doc_string=" + doc_fields(info.doc_string, ':');
    line(level, text);
  }

  // spec/dump.md section 6.
  void graph_body(int level, const IrGraph& graph) {
    doc_line(level, graph.doc_string);
    for (std::size_t k = 0; k < graph.inputs.size(); ++k) value_info(level, "input", k, graph.inputs[k]);
    for (std::size_t k = 0; k < graph.outputs.size(); ++k) value_info(level, "output", k, graph.outputs[k]);
    for (std::size_t k = 0; k < graph.value_info.size(); ++k) {
      value_info(level, "value_info", k, graph.value_info[k]);
    }
    for (std::size_t k = 0; k < graph.initializers.size(); ++k) {
      line(level, "initializer " + std::to_string(k) + " " + tensor_text(graph.initializers[k]));
    }
    for (std::size_t k = 0; k < graph.sparse_initializers.size(); ++k) {
      sparse(level, "sparse_initializer " + std::to_string(k), graph.sparse_initializers[k]);
    }
    for (std::size_t k = 0; k < graph.nodes.size(); ++k) node(level, k, graph.nodes[k]);
  }

  // spec/dump.md section 7.
  void node(int level, std::size_t index, const IrNode& node) {
    line(level, "node " + std::to_string(index) + " " + str(node.name) + " " + str(node.op_type) +
                    " domain=" + str(node.domain) + " overload=" + str(node.overload));
    names_line(level + 1, "inputs", node.inputs);
    names_line(level + 1, "outputs", node.outputs);
    doc_line(level + 1, node.doc_string);
    for (std::size_t k = 0; k < node.attributes.size(); ++k) {
      attribute(level + 1, "attribute " + std::to_string(k), node.attributes[k]);
    }
  }

  void attribute(int level, const std::string& head, const IrAttribute& attr) {
    const auto code = static_cast<std::int32_t>(attr.type);
    std::string text = head + " " + str(attr.name) + " " + std::to_string(code) + " " + attr_type_name(code);
    if (!attr.ref_attr_name.empty()) {
      line(level, text + " ref=" + str(attr.ref_attr_name));
      doc_line(level + 1, attr.doc_string);
      return;
    }
    const int below = level + 1;
    switch (attr.type) {
      case AttrType::Float:
        text += " f=";
        append_float(text, attr.f);
        break;
      case AttrType::Int: text += " i=" + std::to_string(attr.i); break;
      case AttrType::String: text += " s=" + str(attr.s); break;
      case AttrType::Floats:
        text += " floats=[";
        for (std::size_t k = 0; k < attr.floats.size(); ++k) {
          if (k > 0) text.push_back(',');
          append_float(text, attr.floats[k]);
        }
        text.push_back(']');
        break;
      case AttrType::Ints: text += " ints=" + dims_text(attr.ints); break;
      case AttrType::Strings:
        text += " strings=[";
        for (std::size_t k = 0; k < attr.strings.size(); ++k) {
          if (k > 0) text.push_back(',');
          append_str(text, attr.strings[k]);
        }
        text.push_back(']');
        break;
      case AttrType::TypeProto:
        text += " tp=";
        if (attr.type_protos.empty()) {
          text += "none";
        } else {
          append_type(text, attr.type_protos[0]);
        }
        break;
      case AttrType::TypeProtos:
        text += " type_protos=[";
        for (std::size_t k = 0; k < attr.type_protos.size(); ++k) {
          if (k > 0) text.push_back(',');
          append_type(text, attr.type_protos[k]);
        }
        text.push_back(']');
        break;
      case AttrType::Tensors: text += " count=" + std::to_string(attr.tensors.size()); break;
      case AttrType::SparseTensors: text += " count=" + std::to_string(attr.sparse_tensors.size()); break;
      case AttrType::Graphs: text += " count=" + std::to_string(attr.graphs.size()); break;
      default: break;
    }
    line(level, text);
    doc_line(below, attr.doc_string);
    switch (attr.type) {
      case AttrType::Tensor:
      case AttrType::Tensors:
        for (std::size_t k = 0; k < attr.tensors.size(); ++k) {
          line(below, "tensor " + std::to_string(k) + " " + tensor_text(attr.tensors[k]));
        }
        break;
      case AttrType::SparseTensor:
      case AttrType::SparseTensors:
        for (std::size_t k = 0; k < attr.sparse_tensors.size(); ++k) {
          sparse(below, "sparse_tensor " + std::to_string(k), attr.sparse_tensors[k]);
        }
        break;
      case AttrType::Graph:
      case AttrType::Graphs:
        for (std::size_t k = 0; k < attr.graphs.size(); ++k) {
          line(below, "graph " + std::to_string(k) + " " + str(attr.graphs[k].name));
          graph_body(below + 1, attr.graphs[k]);
        }
        break;
      default: break;
    }
  }

  // spec/dump.md section 8.
  void function(std::size_t index, const IrFunction& fn) {
    line(0, "function " + std::to_string(index) + " " + str(fn.name) + " domain=" + str(fn.domain) +
                " overload=" + str(fn.overload));
    doc_line(1, fn.doc_string);
    names_line(1, "inputs", fn.inputs);
    names_line(1, "outputs", fn.outputs);
    names_line(1, "attribute_names", fn.attribute_names);
    for (std::size_t k = 0; k < fn.attribute_defaults.size(); ++k) {
      attribute(1, "attribute_default " + std::to_string(k), fn.attribute_defaults[k]);
    }
    for (const IrOpset& opset : fn.opset_imports) opset_line(1, opset);
    for (std::size_t k = 0; k < fn.nodes.size(); ++k) node(1, k, fn.nodes[k]);
  }

 private:
  std::string out_;
};

}  // namespace

// spec/dump.md section 5.
std::string dump_model(const IrModel& model) {
  Dumper d;
  d.line(0, "onemodel-dump 1");
  d.line(0, "ir_version " + std::to_string(model.ir_version));
  d.line(0, "producer_name " + str(model.producer_name));
  d.line(0, "producer_version " + str(model.producer_version));
  d.line(0, "domain " + str(model.domain));
  d.line(0, "model_version " + std::to_string(model.model_version));
  d.doc_line(0, model.doc_string);
  for (const IrOpset& opset : model.opset_imports) d.opset_line(0, opset);
  for (const auto& [key, value] : model.metadata_props) {
    d.line(0, "metadata_prop " + str(key) + " " + str(value));
  }
  d.line(0, "graph " + str(model.graph.name));
  d.graph_body(1, model.graph);
  for (std::size_t k = 0; k < model.functions.size(); ++k) d.function(k, model.functions[k]);
  return d.take();
}

}  // namespace onemodel
