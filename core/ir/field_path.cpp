#include "core/ir/field_path.hpp"

namespace onemodel {

namespace {
// spec/graph-resolution.md section 8: ONNX paths use GraphProto's field names, manifest paths
// the names of spec/format.md section 2.
constexpr FieldNames kOnnx{"ModelProto.graph", "input", "output", "initializer",
                           "sparse_initializer", "node", "input", "output", "domain",
                           "attribute", "g", "graphs"};
constexpr FieldNames kManifest{"manifest.graph", "inputs", "outputs", "initializers",
                               "sparse_initializers", "nodes", "inputs", "outputs", "domain",
                               "attributes", "value", "value"};
}  // namespace

const FieldNames& field_names(FieldPathStyle style) noexcept {
  return style == FieldPathStyle::Onnx ? kOnnx : kManifest;
}

void append_indexed(std::string& path, const char* field, std::size_t index) {
  path += '.';
  path += field;
  path += '[';
  path += std::to_string(index);
  path += ']';
}

}  // namespace onemodel
