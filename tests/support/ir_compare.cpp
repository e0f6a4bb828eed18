#include "tests/support/ir_compare.hpp"

#include <bit>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace onemodel::test {
namespace {

class Comparer {
 public:
  std::string difference;

  bool fail(const std::string& path, const std::string& what) {
    if (difference.empty()) difference = path + ": " + what;
    return false;
  }

  template <typename T>
  bool eq(const T& a, const T& b, const std::string& path) {
    if (a == b) return true;
    std::ostringstream s;
    if constexpr (std::is_same_v<T, std::string> || std::is_arithmetic_v<T>) {
      s << "'" << a << "' vs '" << b << "'";
    } else {
      s << "values differ";
    }
    return fail(path, s.str());
  }

  bool size(std::size_t a, std::size_t b, const std::string& path) {
    return eq(a, b, path + ".size");
  }

  static std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

  bool bytes(const ByteView& a, const ByteView& b, const std::string& path) {
    if (!size(a.size, b.size, path)) return false;
    if (a.size > 0 && std::memcmp(a.data, b.data, a.size) != 0) return fail(path, "bytes differ");
    return true;
  }

  bool tensor(const IrTensor& a, const IrTensor& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") && eq(a.data_type, b.data_type, p + ".data_type") &&
           eq(a.dims, b.dims, p + ".dims") && eq(a.doc_string, b.doc_string, p + ".doc") &&
           bytes(a.data, b.data, p + ".data") && eq(a.strings, b.strings, p + ".strings");
  }

  bool sparse(const IrSparseTensor& a, const IrSparseTensor& b, const std::string& p) {
    return tensor(a.values, b.values, p + ".values") && tensor(a.indices, b.indices, p + ".indices") &&
           eq(a.dims, b.dims, p + ".dims");
  }

  bool type(const IrType& a, const IrType& b, const std::string& p) {
    if (!eq(static_cast<int>(a.kind), static_cast<int>(b.kind), p + ".kind") ||
        !eq(a.elem_type, b.elem_type, p + ".elem") || !eq(a.has_shape, b.has_shape, p + ".has_shape") ||
        !size(a.shape.size(), b.shape.size(), p + ".shape") || !eq(a.opaque_domain, b.opaque_domain, p + ".domain") ||
        !eq(a.opaque_name, b.opaque_name, p + ".name") || !size(a.inner.size(), b.inner.size(), p + ".inner")) {
      return false;
    }
    for (std::size_t i = 0; i < a.shape.size(); ++i) {
      const IrDim& x = a.shape[i];
      const IrDim& y = b.shape[i];
      if (!eq(static_cast<int>(x.kind), static_cast<int>(y.kind), at(p + ".shape", i) + ".kind") ||
          !eq(x.value, y.value, at(p + ".shape", i)) || !eq(x.param, y.param, at(p + ".shape", i))) {
        return false;
      }
    }
    for (std::size_t i = 0; i < a.inner.size(); ++i) {
      if (!type(a.inner[i], b.inner[i], at(p + ".inner", i))) return false;
    }
    return true;
  }

  bool float_bits(const std::vector<float>& a, const std::vector<float>& b, const std::string& p) {
    if (!size(a.size(), b.size(), p)) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!eq(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i]), at(p, i))) return false;
    }
    return true;
  }

  template <typename T, typename Fn>
  bool list(const std::vector<T>& a, const std::vector<T>& b, const std::string& p, Fn fn) {
    if (!size(a.size(), b.size(), p)) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!(this->*fn)(a[i], b[i], at(p, i))) return false;
    }
    return true;
  }

  bool attribute(const IrAttribute& a, const IrAttribute& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") &&
           eq(static_cast<int>(a.type), static_cast<int>(b.type), p + ".type") &&
           eq(a.doc_string, b.doc_string, p + ".doc") && eq(a.ref_attr_name, b.ref_attr_name, p + ".ref") &&
           eq(std::bit_cast<std::uint32_t>(a.f), std::bit_cast<std::uint32_t>(b.f), p + ".f") &&
           eq(a.i, b.i, p + ".i") && eq(a.s, b.s, p + ".s") && float_bits(a.floats, b.floats, p + ".floats") &&
           eq(a.ints, b.ints, p + ".ints") && eq(a.strings, b.strings, p + ".strings") &&
           list(a.tensors, b.tensors, p + ".tensors", &Comparer::tensor) &&
           list(a.graphs, b.graphs, p + ".graphs", &Comparer::graph) &&
           list(a.sparse_tensors, b.sparse_tensors, p + ".sparse_tensors", &Comparer::sparse) &&
           list(a.type_protos, b.type_protos, p + ".type_protos", &Comparer::type);
  }

  bool node(const IrNode& a, const IrNode& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") && eq(a.op_type, b.op_type, p + ".op") &&
           eq(a.domain, b.domain, p + ".domain") && eq(a.overload, b.overload, p + ".overload") &&
           eq(a.doc_string, b.doc_string, p + ".doc") && eq(a.inputs, b.inputs, p + ".inputs") &&
           eq(a.outputs, b.outputs, p + ".outputs") &&
           list(a.attributes, b.attributes, p + ".attributes", &Comparer::attribute) &&
           eq(a.opset, b.opset, p + ".opset");
  }

  bool value_info(const IrValueInfo& a, const IrValueInfo& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") && type(a.type, b.type, p + ".type");
  }

  bool graph(const IrGraph& a, const IrGraph& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") && eq(a.doc_string, b.doc_string, p + ".doc") &&
           list(a.inputs, b.inputs, p + ".inputs", &Comparer::value_info) &&
           list(a.outputs, b.outputs, p + ".outputs", &Comparer::value_info) &&
           list(a.value_info, b.value_info, p + ".value_info", &Comparer::value_info) &&
           list(a.initializers, b.initializers, p + ".initializers", &Comparer::tensor) &&
           list(a.sparse_initializers, b.sparse_initializers, p + ".sparse_initializers", &Comparer::sparse) &&
           list(a.nodes, b.nodes, p + ".nodes", &Comparer::node) && eq(a.order, b.order, p + ".order") &&
           eq(a.nodes_were_reordered, b.nodes_were_reordered, p + ".nodes_were_reordered") &&
           eq(a.captures, b.captures, p + ".captures") && size(a.values.size(), b.values.size(), p + ".values");
  }

  bool opset(const IrOpset& a, const IrOpset& b, const std::string& p) {
    return eq(a.domain, b.domain, p + ".domain") && eq(a.version, b.version, p + ".version");
  }

  bool function(const IrFunction& a, const IrFunction& b, const std::string& p) {
    return eq(a.name, b.name, p + ".name") && eq(a.domain, b.domain, p + ".domain") &&
           eq(a.overload, b.overload, p + ".overload") && eq(a.doc_string, b.doc_string, p + ".doc") &&
           eq(a.inputs, b.inputs, p + ".inputs") && eq(a.outputs, b.outputs, p + ".outputs") &&
           eq(a.attribute_names, b.attribute_names, p + ".attribute_names") &&
           list(a.attribute_defaults, b.attribute_defaults, p + ".attribute_defaults", &Comparer::attribute) &&
           list(a.nodes, b.nodes, p + ".nodes", &Comparer::node) &&
           list(a.opset_imports, b.opset_imports, p + ".opsets", &Comparer::opset);
  }

  bool model(const IrModel& a, const IrModel& b) {
    const std::string p = "model";
    return eq(a.ir_version, b.ir_version, p + ".ir_version") &&
           eq(a.producer_name, b.producer_name, p + ".producer_name") &&
           eq(a.producer_version, b.producer_version, p + ".producer_version") &&
           eq(a.domain, b.domain, p + ".domain") && eq(a.model_version, b.model_version, p + ".model_version") &&
           eq(a.doc_string, b.doc_string, p + ".doc") &&
           list(a.opset_imports, b.opset_imports, p + ".opsets", &Comparer::opset) &&
           eq(a.metadata_props, b.metadata_props, p + ".metadata") && graph(a.graph, b.graph, p + ".graph") &&
           list(a.functions, b.functions, p + ".functions", &Comparer::function);
  }
};

}  // namespace

std::string ir_difference(const IrModel& a, const IrModel& b) {
  Comparer c;
  c.model(a, b);
  return c.difference;
}

}  // namespace onemodel::test
