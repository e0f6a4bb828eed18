// spec/ops/elementwise.md section 2: NumPy broadcasting of the element-wise operators' inputs.
#include "reference/ops/elementwise_broadcast.hpp"

#include "onemodel/tensor_error.hpp"

namespace onemodel::ew {

namespace {

Shape fold(const InferContext& context, const std::vector<std::size_t>& inputs) {
  Shape shape;
  bool first = true;
  for (std::size_t i : inputs) {
    if (!context.has_input(i)) continue;
    if (first) {
      shape = context.input_shape(i);
      first = false;
      continue;
    }
    try {
      shape = Shape::broadcast(shape, context.input_shape(i));
    } catch (const TensorError&) {
      context.node().fail_invalid("input shapes do not broadcast: " + shape.to_string() + " and " +
                                  context.input_shape(i).to_string());
    }
  }
  return shape;
}

}  // namespace

Shape broadcast_inputs(const InferContext& context, std::initializer_list<std::size_t> inputs) {
  return fold(context, std::vector<std::size_t>(inputs));
}

Shape broadcast_all_inputs(const InferContext& context) {
  std::vector<std::size_t> all(context.input_count());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return fold(context, all);
}

}  // namespace onemodel::ew
