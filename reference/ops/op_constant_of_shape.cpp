// ConstantOfShape (opset 9+): a tensor of the shape given by input 0 (int64), every element the
// one-element `value` attribute (any stored type; default float32 0). A negative extent is
// InvalidModel (spec/ops/shape-indexing.md section 2, ConstantOfShape).
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class ConstantOfShape final : public OpKernel {
 public:
  explicit ConstantOfShape(Tensor value) : value_(std::move(value)) {}
  void infer(InferContext& context) const override {
    const Tensor* shape_value = value_or_defer(context, 0);
    if (shape_value == nullptr) return;
    const std::vector<std::int64_t> extents = read_ints(context.node(), *shape_value, "shape");
    context.set_output(0, value_.dtype(), make_shape(context.node(), extents));
  }
  void run(RunContext& context) const override {
    std::span<const std::byte> one = tensor_bytes(value_);
    std::span<std::byte> out = mutable_tensor_bytes(context.output(0));
    for (std::size_t i = 0; i < out.size(); i += one.size()) std::memcpy(out.data() + i, one.data(), one.size());
  }

 private:
  Tensor value_;
};

}  // namespace

std::unique_ptr<OpKernel> make_constant_of_shape(const NodeInfo& node) {
  std::optional<Tensor> value = node.get_tensor("value");
  if (!value) return std::make_unique<ConstantOfShape>(Tensor::from_values<float>(DType::F32, Shape{1}, {0.0f}));
  if (value->element_count() != 1) node.fail_invalid("value must hold one element");
  return std::make_unique<ConstantOfShape>(value->contiguous());
}

}  // namespace onemodel
