// Graph resolution shared by the ONNX importer and the OneModel format reader
// (spec/onnx-import.md section 4, spec/format.md section 3). Internal header.
#pragma once

#include <string>

#include "onemodel/ir.hpp"

namespace onemodel {

// How field paths are spelled in errors: ONNX (`ModelProto.graph.node[3]`) or the OneModel
// manifest (`manifest.graph.nodes[3]`).
enum class FieldPathStyle { Onnx, Manifest };

// Fills IrGraph::values, value_index, order, nodes_were_reordered, captures and IrNode::opset
// for the main graph and every subgraph. Throws ModelError(InvalidModel) naming the field.
void resolve_model(IrModel& model, FieldPathStyle style);

}  // namespace onemodel
