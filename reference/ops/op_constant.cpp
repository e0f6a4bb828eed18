// Constant: one attribute gives the value (spec/ops/shape-indexing.md section 2, Constant): `value`
// (a tensor, STRING included), `value_float(s)`, `value_int(s)`, `value_string(s)`; sparse values
// are not supported. The output is a constant of the plan; the node never runs.
#include "core/graph/op_kernel.hpp"

namespace onemodel {
namespace {

class ConstantOp final : public OpKernel {
 public:
  explicit ConstantOp(Tensor value) : value_(std::move(value)) {
    string_elements = value_.dtype() == DType::String;  // spec/tensors.md section 8
  }
  void infer(InferContext& context) const override { context.set_constant_output(0, value_); }
  void run(RunContext&) const override {}

 private:
  Tensor value_;
};

}  // namespace

std::unique_ptr<OpKernel> make_constant(const NodeInfo& node) {
  int given = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                           "value_strings", "sparse_value"}) {
    if (node.has(name)) ++given;
  }
  if (given != 1) node.fail_invalid("exactly one value attribute is required, found " + std::to_string(given));
  // ONNX Constant: value_string is a scalar STRING, value_strings a 1-D STRING tensor.
  if (node.has("value_string")) {
    const std::string one = node.get_string("value_string", "");
    return std::make_unique<ConstantOp>(Tensor::from_strings(Shape{}, std::span<const std::string>(&one, 1)));
  }
  if (node.has("value_strings")) {
    const std::vector<std::string> all = node.get_strings("value_strings", {});
    const std::int64_t n = static_cast<std::int64_t>(all.size());
    return std::make_unique<ConstantOp>(Tensor::from_strings(Shape{std::span<const std::int64_t>(&n, 1)}, all));
  }
  if (node.has("sparse_value")) node.fail_unsupported("sparse constants are not supported");
  if (node.has("value")) return std::make_unique<ConstantOp>(*node.get_tensor("value"));
  if (node.has("value_float")) {
    return std::make_unique<ConstantOp>(
        Tensor::from_values<float>(DType::F32, Shape{}, {node.get_float("value_float", 0.0f)}));
  }
  if (node.has("value_int")) {
    return std::make_unique<ConstantOp>(
        Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {node.get_int("value_int", 0)}));
  }
  if (node.has("value_floats")) {
    const std::vector<float> v = node.get_floats("value_floats");
    return std::make_unique<ConstantOp>(
        Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(v.size())}, v));
  }
  const std::vector<std::int64_t> v = node.get_ints("value_ints");
  return std::make_unique<ConstantOp>(
      Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())}, v));
}

}  // namespace onemodel
