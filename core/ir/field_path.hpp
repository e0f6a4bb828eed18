// Field paths of graph resolution errors, spelled for ONNX or for the OneModel manifest
// (spec/graph-resolution.md section 8).
#pragma once

#include <cstddef>
#include <string>

#include "core/ir/resolve.hpp"

namespace onemodel {

// The field names of one path style. Each list field is written `<field>[<index>]`.
struct FieldNames {
  const char* root;                // the main graph
  const char* graph_input;         // GraphProto.input / Graph.inputs
  const char* graph_output;
  const char* initializer;
  const char* sparse_initializer;
  const char* node;
  const char* node_input;
  const char* node_output;
  const char* node_domain;
  const char* attribute;
  const char* graph_attribute;     // the one graph of a Graph attribute (no index)
  const char* graphs_attribute;    // the graphs of a Graphs attribute (indexed)
};

const FieldNames& field_names(FieldPathStyle style) noexcept;

// Appends `.<field>[<index>]` to `path`.
void append_indexed(std::string& path, const char* field, std::size_t index);

}  // namespace onemodel
