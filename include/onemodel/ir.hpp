// The imported model graph shared by the ONNX importer, the OneModel format reader and writer,
// the structural dump and (later) both engines. It holds the model exactly as written: nothing is
// converted, expanded or optimised here. spec/onnx-import.md section 2 lists the fields;
// spec/onnx-import.md section 4 defines what resolution adds (the `values`, `order` and
// `captures` members, filled by resolve_model()).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onemodel/bytes.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// ONNX TensorProto.DataType codes, as stored in files. Kept as plain integers in the IR because
// a file may name types the tensor library does not store (strings, 4-bit integers, ...).
namespace onnx_type {
inline constexpr std::int32_t kUndefined = 0;
inline constexpr std::int32_t kString = 8;
}  // namespace onnx_type

// A dense tensor as written in a model: its values are little-endian bytes in the layout of
// ONNX TensorProto.raw_data (spec/onnx-import.md section 3), whatever field they came from.
struct IrTensor {
  std::string name;
  std::int32_t data_type = 0;        // TensorProto.DataType code
  std::vector<std::int64_t> dims;    // non-negative, checked on import
  std::string doc_string;
  ByteView data;                     // raw layout; empty for strings and for empty tensors
  std::vector<std::string> strings;  // data_type 8 only: one entry per element, raw bytes
  // A compact weight (spec-source fp16.md, "Keeping binary32 weights compact"): a binary32
  // weight of MatMul, Gemm or Conv stored as float16 or bfloat16 (data_type 10 or 16). Its node
  // computes in binary32: the weight is widened where it is used and never sets the node's
  // storage type. Set by the session's WeightStorage option or by a converted OneModel file.
  bool compact = false;
};

struct IrSparseTensor {
  IrTensor values;
  IrTensor indices;
  std::vector<std::int64_t> dims;
};

struct IrDim {
  enum class Kind { Unknown, Value, Param };
  Kind kind = Kind::Unknown;
  std::int64_t value = 0;  // Kind::Value
  std::string param;       // Kind::Param (a symbolic name)
};

// ONNX TypeProto. `inner` holds the element type of sequences and optionals and the value
// type of maps (one entry), and nothing otherwise.
struct IrType {
  enum class Kind { None, Tensor, SparseTensor, Sequence, Map, Optional, Opaque };
  Kind kind = Kind::None;
  std::int32_t elem_type = 0;  // Tensor, SparseTensor: element type; Map: key type
  bool has_shape = false;      // Tensor, SparseTensor: false means unknown rank
  std::vector<IrDim> shape;
  std::vector<IrType> inner;
  std::string opaque_domain;
  std::string opaque_name;
};

struct IrGraph;

// ONNX AttributeProto.AttributeType codes.
enum class AttrType : std::int32_t {
  Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5, Floats = 6, Ints = 7,
  Strings = 8, Tensors = 9, Graphs = 10, SparseTensor = 11, SparseTensors = 12, TypeProto = 13,
  TypeProtos = 14,
};

// One attribute. Scalars use `f`, `i`, `s`; every other kind uses the plural vector of its
// kind, and the singular kinds (Tensor, Graph, SparseTensor, TypeProto) keep their one value
// in element 0. An attribute with a non-empty `ref_attr_name` carries no value.
struct IrAttribute {
  std::string name;
  AttrType type = AttrType::Undefined;
  std::string doc_string;
  std::string ref_attr_name;
  float f = 0.0f;
  std::int64_t i = 0;
  std::string s;  // bytes, not decoded
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  std::vector<std::string> strings;
  std::vector<IrTensor> tensors;
  std::vector<IrGraph> graphs;
  std::vector<IrSparseTensor> sparse_tensors;
  std::vector<IrType> type_protos;
};

struct IrNode {
  std::string name;
  std::string op_type;
  std::string domain;
  std::string overload;
  std::string doc_string;
  std::vector<std::string> inputs;   // "" is an omitted optional input
  std::vector<std::string> outputs;  // "" is an omitted optional output
  std::vector<IrAttribute> attributes;
  std::int64_t opset = 0;            // set by resolution: the version imported for `domain`
};

struct IrValueInfo {
  std::string name;
  IrType type;
  std::string doc_string;
};

// Filled by resolution (spec/onnx-import.md section 4).
struct IrValue {
  enum class Source { Input, Initializer, SparseInitializer, NodeOutput };
  std::string name;
  Source source = Source::Input;
  std::int32_t index = -1;        // into inputs, initializers, sparse_initializers or nodes
  std::int32_t output_slot = -1;  // NodeOutput: which output of the node
  std::int32_t default_initializer = -1;  // Input: the initializer giving its default value
  IrType type;                             // declared type (declarations, then value_info)
  std::vector<std::int32_t> consumers;     // node indices, in `order`, each once
};

struct IrGraph {
  std::string name;
  std::string doc_string;
  std::vector<IrValueInfo> inputs;
  std::vector<IrValueInfo> outputs;
  std::vector<IrValueInfo> value_info;
  std::vector<IrTensor> initializers;
  std::vector<IrSparseTensor> sparse_initializers;
  std::vector<IrNode> nodes;  // as written in the file (file order)

  // Resolution results.
  std::vector<IrValue> values;                          // values defined in this graph
  std::unordered_map<std::string, std::int32_t> value_index;  // name -> index into values
  std::vector<std::int32_t> order;                      // node indices in dependency order
  bool nodes_were_reordered = false;
  std::vector<std::string> captures;  // outer values this graph or its subgraphs read, first-use order
};

struct IrOpset {
  std::string domain;  // "" and "ai.onnx" are the same domain
  std::int64_t version = 0;
};

struct IrFunction {
  std::string name;
  std::string domain;
  std::string overload;
  std::string doc_string;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attribute_names;       // FunctionProto.attribute
  std::vector<IrAttribute> attribute_defaults;    // FunctionProto.attribute_proto
  std::vector<IrNode> nodes;
  std::vector<IrOpset> opset_imports;
};

struct IrModel {
  std::int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  std::int64_t model_version = 0;
  std::string doc_string;
  std::vector<IrOpset> opset_imports;
  std::vector<std::pair<std::string, std::string>> metadata_props;  // order kept
  IrGraph graph;
  std::vector<IrFunction> functions;
  std::string source_name;  // the path or the name the caller gave the bytes
};

}  // namespace onemodel

#pragma GCC visibility pop
