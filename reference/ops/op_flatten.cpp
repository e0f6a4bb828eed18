// Flatten: [prod(extents before axis), prod(extents from axis)] (spec/ops/shape-indexing.md section
// 2, Flatten): `axis` (default 1) in [-rank, rank]; axis 0 gives [1, size]. A view of the input.
#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Flatten final : public OpKernel {
 public:
  explicit Flatten(std::int64_t axis) : axis_(axis) {
    view_of_input = true;
    string_elements = true;  // copies elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Shape& in = context.input_shape(0);
    const int rank = in.rank();
    std::int64_t axis = axis_;
    if (axis < -rank || axis > rank) context.node().fail_invalid("axis " + std::to_string(axis) + " outside [-rank, rank]");
    if (axis < 0) axis += rank;
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= in[d];
    std::int64_t inner = 1;
    for (int d = static_cast<int>(axis); d < rank; ++d) inner *= in[d];
    context.set_output(0, context.input_type(0), make_shape(context.node(), {outer, inner}));
  }
  void run(RunContext& context) const override { context.input(0).copy_elements_to(context.output(0)); }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_flatten(const NodeInfo& node) { return std::make_unique<Flatten>(node.get_int("axis", 1)); }

}  // namespace onemodel
