// Compress (opsets 9, 11, 28; 11 allowed negative axes, 28 only added types): the slices along
// `axis` whose condition entry is true, in order, like numpy.compress (ONNX Compress text;
// spec/ops/shape-indexing.md section 2, Compress). Without `axis` the input is read flattened and
// the output is rank 1. The condition is a rank-1 bool tensor; it may be shorter than the axis
// (missing entries are false) or longer when the entries past the axis are false; a true entry
// past the axis selects nothing that exists and is refused (numpy raises there; ONNX Runtime
// ignores it). The condition's value decides the output shape: it is read in infer(), deferred
// to run time when not known (section 1, rule 6). Moves bytes: every stored type, exact.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Compress final : public OpKernel {
 public:
  explicit Compress(const NodeInfo& node) : has_axis_(node.has("axis")), axis_(node.get_int("axis", 0)) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    if (context.input_type(1) != DType::Bool) {
      node.fail_invalid("condition must be bool, not " + std::string(dtype_name(context.input_type(1))));
    }
    if (context.input_shape(1).rank() != 1) {
      node.fail_invalid("condition must have rank 1, not " + std::to_string(context.input_shape(1).rank()));
    }
    const Shape& in = context.input_shape(0);
    const Geometry g = geometry(node, in);  // checks the axis before the value is needed
    const Tensor* condition = value_or_defer(context, 1);
    if (condition == nullptr) return;
    const std::int64_t kept = static_cast<std::int64_t>(selected(node, *condition, g.extent, false).size());
    std::vector<std::int64_t> out;
    if (!has_axis_) {
      out.push_back(kept);
    } else {
      out = extents_of(in);
      out[static_cast<std::size_t>(g.axis)] = kept;
    }
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor in = context.input(0).contiguous();
    const Geometry g = geometry(node, in.shape());
    const std::vector<std::int64_t> keep = selected(node, context.input(1), g.extent, true);
    const SourceElements src(in);
    const TargetElements dst(context.output(0));
    std::int64_t to = 0;
    for (std::int64_t o = 0; o < g.outer; ++o) {
      for (std::int64_t j : keep) {
        const std::int64_t from = (o * g.extent + j) * g.inner;
        for (std::int64_t i = 0; i < g.inner; ++i) move_element(dst, to++, src, from + i);
      }
    }
  }

 private:
  // The input seen as [outer, extent, inner] around the axis (flattened: [1, size, 1]).
  struct Geometry {
    int axis = 0;
    std::int64_t outer = 1, extent = 1, inner = 1;
  };
  Geometry geometry(const NodeInfo& node, const Shape& in) const {
    Geometry g;
    if (!has_axis_) {
      g.extent = in.element_count();
      return g;
    }
    g.axis = normalize_axis(node, axis_, in.rank());
    for (int d = 0; d < g.axis; ++d) g.outer *= in[d];  // the element count bounds every product
    g.extent = in[g.axis];
    for (int d = g.axis + 1; d < in.rank(); ++d) g.inner *= in[d];
    return g;
  }
  // The positions along the axis whose condition entry is true, ascending. A true entry past the
  // axis: InvalidModel in infer() (InvalidInput when the condition is the caller's, spec/errors.md
  // section 3.2), InvalidInput at run time.
  static std::vector<std::int64_t> selected(const NodeInfo& node, const Tensor& condition, std::int64_t extent,
                                            bool at_run) {
    const std::vector<std::uint8_t> c = condition.contiguous().to_vector<std::uint8_t>();
    std::vector<std::int64_t> keep;
    for (std::size_t j = 0; j < c.size(); ++j) {
      if (c[j] == 0) continue;
      const std::int64_t at = static_cast<std::int64_t>(j);
      if (at >= extent) {
        const std::string why =
            "condition entry " + std::to_string(at) + " is true but the axis has " + std::to_string(extent) + " slices";
        if (at_run) fail_index(node, why);
        node.fail_invalid(why);
      }
      keep.push_back(at);
    }
    return keep;
  }

  bool has_axis_;
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_compress(const NodeInfo& node) { return std::make_unique<Compress>(node); }

}  // namespace onemodel
