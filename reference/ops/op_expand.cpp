// Expand (opset 8+): the output shape is the bidirectional broadcast of the input's shape and the
// shape input, so an input extent may exceed a shape entry of 1 (spec/ops/shape-indexing.md
// section 2, Expand). A copy through a broadcast view.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

Shape expanded(const NodeInfo& node, const Shape& in, const Tensor& shape_value) {
  const std::vector<std::int64_t> target = read_ints(node, shape_value, "shape");
  if (target.size() > static_cast<std::size_t>(kMaxRank)) node.fail_unsupported("shape rank above 8");
  const Shape requested = make_shape(node, target);
  try {
    return Shape::broadcast(in, requested);
  } catch (const TensorError&) {
    node.fail_invalid("cannot broadcast " + in.to_string() + " with " + requested.to_string());
  }
}

class Expand final : public OpKernel {
 public:
  Expand() {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Tensor* shape_value = value_or_defer(context, 1);
    if (shape_value == nullptr) return;
    context.set_output(0, context.input_type(0), expanded(context.node(), context.input_shape(0), *shape_value));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    copy_view_into(context.input(0).expand(out.shape()), out);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_expand(const NodeInfo&) { return std::make_unique<Expand>(); }

}  // namespace onemodel
