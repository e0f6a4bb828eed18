#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

namespace {
std::int64_t next_index(std::size_t size) { return static_cast<std::int64_t>(size); }

// StringStringEntryProto: key 1, value 2.
std::pair<std::string, std::string> parse_entry(ImportContext& ctx, pb::WireReader& r) {
  std::pair<std::string, std::string> e;
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) pb::get_string(ctx.pb, f, "key", e.first);
    else if (f.number == 2) pb::get_string(ctx.pb, f, "value", e.second);
  }
  return e;
}
}  // namespace

// OperatorSetIdProto: domain 1, version 2.
IrOpset parse_opset(ImportContext& ctx, pb::WireReader& r) {
  IrOpset o;
  pb::WireField f;
  while (r.next(f)) {
    if (f.number == 1) pb::get_string(ctx.pb, f, "domain", o.domain);
    else if (f.number == 2) pb::get_int64(f, o.version);
  }
  return o;
}

// FunctionProto: name 1, input 4, output 5, attribute 6, node 7, doc_string 8, opset_import 9,
// domain 10, attribute_proto 11, overload 13; value_info and metadata_props skipped.
IrFunction parse_function(ImportContext& ctx, pb::WireReader& r) {
  IrFunction fn;
  pb::WireField f;
  std::string s;
  while (r.next(f)) {
    switch (f.number) {
      case 1: pb::get_string(ctx.pb, f, "name", fn.name); break;
      case 4:
        if (pb::get_string(ctx.pb, f, "input", s)) fn.inputs.push_back(std::move(s));
        break;
      case 5:
        if (pb::get_string(ctx.pb, f, "output", s)) fn.outputs.push_back(std::move(s));
        break;
      case 6:
        if (pb::get_string(ctx.pb, f, "attribute", s)) fn.attribute_names.push_back(std::move(s));
        break;
      case 7:
        pb::read_message(ctx.pb, f, "node", next_index(fn.nodes.size()),
                         [&](pb::WireReader& sub) { fn.nodes.push_back(parse_node(ctx, sub)); });
        break;
      case 8: pb::get_string(ctx.pb, f, "doc_string", fn.doc_string); break;
      case 9:
        pb::read_message(ctx.pb, f, "opset_import", next_index(fn.opset_imports.size()),
                         [&](pb::WireReader& sub) { fn.opset_imports.push_back(parse_opset(ctx, sub)); });
        break;
      case 10: pb::get_string(ctx.pb, f, "domain", fn.domain); break;
      case 11:
        pb::read_message(ctx.pb, f, "attribute_proto", next_index(fn.attribute_defaults.size()),
                         [&](pb::WireReader& sub) { fn.attribute_defaults.push_back(parse_attribute(ctx, sub)); });
        break;
      case 13: pb::get_string(ctx.pb, f, "overload", fn.overload); break;
      default: break;
    }
  }
  return fn;
}

// ModelProto: ir_version 1, producer_name 2, producer_version 3, domain 4, model_version 5,
// doc_string 6, graph 7, opset_import 8, metadata_props 14, functions 25; training_info and
// configuration skipped.
IrModel parse_model(ImportContext& ctx, pb::WireReader& r) {
  IrModel m;
  bool has_ir_version = false;
  bool has_graph = false;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1: has_ir_version = pb::get_int64(f, m.ir_version) || has_ir_version; break;
      case 2: pb::get_string(ctx.pb, f, "producer_name", m.producer_name); break;
      case 3: pb::get_string(ctx.pb, f, "producer_version", m.producer_version); break;
      case 4: pb::get_string(ctx.pb, f, "domain", m.domain); break;
      case 5: pb::get_int64(f, m.model_version); break;
      case 6: pb::get_string(ctx.pb, f, "doc_string", m.doc_string); break;
      case 7:
        // A repeated singular message: the last one wins, never merged.
        has_graph = pb::read_message(ctx.pb, f, "graph", -1, [&](pb::WireReader& sub) { m.graph = parse_graph(ctx, sub); }) ||
                    has_graph;
        break;
      case 8:
        pb::read_message(ctx.pb, f, "opset_import", next_index(m.opset_imports.size()),
                         [&](pb::WireReader& sub) { m.opset_imports.push_back(parse_opset(ctx, sub)); });
        break;
      case 14:
        pb::read_message(ctx.pb, f, "metadata_props", next_index(m.metadata_props.size()),
                         [&](pb::WireReader& sub) { m.metadata_props.push_back(parse_entry(ctx, sub)); });
        break;
      case 25:
        pb::read_message(ctx.pb, f, "functions", next_index(m.functions.size()),
                         [&](pb::WireReader& sub) { m.functions.push_back(parse_function(ctx, sub)); });
        break;
      default: break;
    }
  }
  // spec/onnx-import.md section 2 (model checks).
  if (!has_ir_version) {
    pb::PathScope s(ctx.pb, "ir_version");
    ctx.pb.fail(ModelErrorKind::InvalidModel, "ir_version is missing", 0);
  }
  if (m.ir_version < 3) {
    pb::PathScope s(ctx.pb, "ir_version");
    ctx.pb.fail(ModelErrorKind::InvalidModel, "ir_version " + std::to_string(m.ir_version) + " is below 3", 0);
  }
  if (!has_graph) {
    pb::PathScope s(ctx.pb, "graph");
    ctx.pb.fail(ModelErrorKind::InvalidModel, "model has no graph", 0);
  }
  return m;
}

}  // namespace onemodel::onnx
