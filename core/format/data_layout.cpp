#include "core/format/data_layout.hpp"

#include "core/format/dtype_bits.hpp"
#include "onemodel/error.hpp"

namespace onemodel {
namespace {

class LayoutPlanner {
 public:
  explicit LayoutPlanner(const std::string& source) : source_(source) {}

  void graph(const IrGraph& g, const std::string& path) {
    for (std::size_t i = 0; i < g.initializers.size(); ++i) {
      tensor(g.initializers[i], path + ".initializers[" + std::to_string(i) + "]");
    }
    for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i) {
      sparse(g.sparse_initializers[i], path + ".sparse_initializers[" + std::to_string(i) + "]");
    }
    nodes(g.nodes, path);
  }

  void nodes(const std::vector<IrNode>& list, const std::string& path) {
    for (std::size_t n = 0; n < list.size(); ++n) {
      attributes(list[n].attributes, path + ".nodes[" + std::to_string(n) + "].attributes");
    }
  }

  void attributes(const std::vector<IrAttribute>& list, const std::string& path) {
    for (std::size_t a = 0; a < list.size(); ++a) {
      const IrAttribute& attr = list[a];
      const std::string ap = path + "[" + std::to_string(a) + "].value";
      if (!attr.ref_attr_name.empty()) continue;  // references carry no value
      switch (attr.type) {
        case AttrType::Tensor:
        case AttrType::Tensors:
          for (std::size_t i = 0; i < attr.tensors.size(); ++i) tensor(attr.tensors[i], indexed(ap, attr, i));
          break;
        case AttrType::SparseTensor:
        case AttrType::SparseTensors:
          for (std::size_t i = 0; i < attr.sparse_tensors.size(); ++i) {
            sparse(attr.sparse_tensors[i], indexed(ap, attr, i));
          }
          break;
        case AttrType::Graph:
        case AttrType::Graphs:
          for (std::size_t i = 0; i < attr.graphs.size(); ++i) graph(attr.graphs[i], indexed(ap, attr, i));
          break;
        default: break;
      }
    }
  }

  DataLayout take() { return std::move(layout_); }

 private:
  static std::string indexed(const std::string& path, const IrAttribute& attr, std::size_t i) {
    const bool plural = attr.type == AttrType::Tensors || attr.type == AttrType::SparseTensors ||
                        attr.type == AttrType::Graphs;
    return plural ? path + "[" + std::to_string(i) + "]" : path;
  }

  void sparse(const IrSparseTensor& s, const std::string& path) {
    tensor(s.values, path + ".values");
    tensor(s.indices, path + ".indices");
  }

  void tensor(const IrTensor& t, const std::string& path) {
    if (t.data_type == onnx_type::kString) return;
    const std::optional<int> bits = dtype_bits(t.data_type);
    if (!bits) {
      throw ModelError(ModelErrorKind::Unsupported, "cannot write dtype " + std::to_string(t.data_type), source_,
                       std::nullopt, path + ".dtype");
    }
    const ElementCount count = element_count(t.dims);
    if (count.problem != CountProblem::None) {
      throw ModelError(ModelErrorKind::InvalidModel, "tensor dims are negative or too large", source_, std::nullopt,
                       path + ".dims");
    }
    const std::uint64_t expected = packed_byte_length(count.count, *bits);
    if (expected != t.data.size) {
      throw ModelError(ModelErrorKind::InvalidModel,
                       "tensor holds " + std::to_string(t.data.size) + " bytes, dims and dtype need " +
                           std::to_string(expected),
                       source_, std::nullopt, path + ".data");
    }
    TensorPlacement placement;
    placement.length = expected;
    if (expected > 0) {
      // spec/format.md section 1.3: each tensor starts at a multiple of 64, zero bytes between.
      const std::uint64_t start = (layout_.data_length + 63) / 64 * 64;
      placement.offset = start;
      layout_.data_length = start + expected;
      layout_.order.push_back(&t);
    }
    layout_.placements[&t] = placement;
  }

  const std::string& source_;
  DataLayout layout_;
};

}  // namespace

DataLayout plan_data_layout(const IrModel& model) {
  LayoutPlanner planner(model.source_name);
  planner.graph(model.graph, "manifest.graph");
  for (std::size_t f = 0; f < model.functions.size(); ++f) {
    const std::string fp = "manifest.functions[" + std::to_string(f) + "]";
    planner.nodes(model.functions[f].nodes, fp);
    planner.attributes(model.functions[f].attribute_defaults, fp + ".attribute_defaults");
  }
  return planner.take();
}

}  // namespace onemodel
