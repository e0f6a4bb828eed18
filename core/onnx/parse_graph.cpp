#include "core/onnx/message_parsers.hpp"
#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

namespace {
std::int64_t next_index(std::size_t size) { return static_cast<std::int64_t>(size); }
}  // namespace

// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, doc_string 6, domain 7,
// overload 8; metadata_props and device_configurations are skipped.
IrNode parse_node(ImportContext& ctx, pb::WireReader& r) {
  IrNode n;
  pb::WireField f;
  std::string s;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        if (pb::get_string(ctx.pb, f, "input", s)) n.inputs.push_back(std::move(s));
        break;
      case 2:
        if (pb::get_string(ctx.pb, f, "output", s)) n.outputs.push_back(std::move(s));
        break;
      case 3: pb::get_string(ctx.pb, f, "name", n.name); break;
      case 4: pb::get_string(ctx.pb, f, "op_type", n.op_type); break;
      case 5:
        pb::read_message(ctx.pb, f, "attribute", next_index(n.attributes.size()),
                         [&](pb::WireReader& sub) { n.attributes.push_back(parse_attribute(ctx, sub)); });
        break;
      case 6: pb::get_string(ctx.pb, f, "doc_string", n.doc_string); break;
      case 7: pb::get_string(ctx.pb, f, "domain", n.domain); break;
      case 8: pb::get_string(ctx.pb, f, "overload", n.overload); break;
      default: break;
    }
  }
  return n;
}

// GraphProto: node 1, name 2, initializer 5, doc_string 10, input 11, output 12,
// value_info 13, sparse_initializer 15; quantization_annotation and metadata_props skipped.
IrGraph parse_graph(ImportContext& ctx, pb::WireReader& r) {
  IrGraph g;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        pb::read_message(ctx.pb, f, "node", next_index(g.nodes.size()),
                         [&](pb::WireReader& sub) { g.nodes.push_back(parse_node(ctx, sub)); });
        break;
      case 2: pb::get_string(ctx.pb, f, "name", g.name); break;
      case 5:
        pb::read_message(ctx.pb, f, "initializer", next_index(g.initializers.size()),
                         [&](pb::WireReader& sub) { g.initializers.push_back(parse_tensor(ctx, sub)); });
        break;
      case 10: pb::get_string(ctx.pb, f, "doc_string", g.doc_string); break;
      case 11:
        pb::read_message(ctx.pb, f, "input", next_index(g.inputs.size()),
                         [&](pb::WireReader& sub) { g.inputs.push_back(parse_value_info(ctx, sub)); });
        break;
      case 12:
        pb::read_message(ctx.pb, f, "output", next_index(g.outputs.size()),
                         [&](pb::WireReader& sub) { g.outputs.push_back(parse_value_info(ctx, sub)); });
        break;
      case 13:
        pb::read_message(ctx.pb, f, "value_info", next_index(g.value_info.size()),
                         [&](pb::WireReader& sub) { g.value_info.push_back(parse_value_info(ctx, sub)); });
        break;
      case 15:
        pb::read_message(ctx.pb, f, "sparse_initializer", next_index(g.sparse_initializers.size()),
                         [&](pb::WireReader& sub) { g.sparse_initializers.push_back(parse_sparse_tensor(ctx, sub)); });
        break;
      default: break;
    }
  }
  return g;
}

}  // namespace onemodel::onnx
