// Reshape (opset 5+; the shape is an input): spec/ops/shape-indexing.md section 3 (Reshape). An
// entry 0 copies the input's extent at that position (unless `allowzero`, opset 14+, when it means
// an extent of 0), one entry -1 is inferred from the element count. A view of the input.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Reshape final : public OpKernel {
 public:
  explicit Reshape(bool allow_zero) : allow_zero_(allow_zero) {
    view_of_input = true;
    string_elements = true;  // copies elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Tensor* shape_value = value_or_defer(context, 1);
    if (shape_value == nullptr) return;
    const NodeInfo& node = context.node();
    const Shape& in = context.input_shape(0);
    std::vector<std::int64_t> target = read_ints(node, *shape_value, "shape");
    if (shape_value->rank() != 1) node.fail_invalid("shape must be a 1-D tensor");
    int inferred = -1;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      std::int64_t& e = target[i];
      if (e == 0 && !allow_zero_) {
        if (static_cast<int>(i) >= in.rank()) node.fail_invalid("shape entry 0 at position " + std::to_string(i) + " past the input's rank");
        e = in[static_cast<int>(i)];
      }
      if (e == -1) {
        if (inferred >= 0) node.fail_invalid("more than one -1 in the shape");
        inferred = static_cast<int>(i);
        continue;
      }
      if (e < 0) node.fail_invalid("negative extent " + std::to_string(e) + " in the shape");
      if (e > kMaxElements) node.fail_unsupported("extent " + std::to_string(e) + " beyond the library's limits");
      known *= e;
      if (known > kMaxElements) node.fail_unsupported("element count beyond the library's limits");
    }
    if (allow_zero_ && inferred >= 0 && known == 0) node.fail_invalid("-1 with a 0 extent under allowzero");
    const std::int64_t count = in.element_count();
    if (inferred >= 0) {
      if (known == 0 || count % known != 0) {
        node.fail_invalid("cannot infer the -1 extent of " + std::to_string(count) + " elements");
      }
      target[static_cast<std::size_t>(inferred)] = count / known;
    } else if (known != count) {
      node.fail_invalid("shape has " + std::to_string(known) + " elements, input " + std::to_string(count));
    }
    context.set_output(0, context.input_type(0), make_shape(node, target));
  }
  void run(RunContext& context) const override {
    // Same bytes in the same row-major order: only the shape differs.
    context.input(0).copy_elements_to(context.output(0));
  }

 private:
  bool allow_zero_;
};

}  // namespace

std::unique_ptr<OpKernel> make_reshape(const NodeInfo& node) {
  return std::make_unique<Reshape>(node.opset() >= 14 && node.get_int("allowzero", 0) != 0);
}

}  // namespace onemodel
