// OptionalHasElement (opset 15+): true when the input is an optional holding a value, or (opset
// 18) a tensor or a sequence; false for an empty optional or (opset 18) an omitted input
// (spec/ops/control-flow.md section 2). A bool scalar.
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class OptionalHasElement final : public sequence_ops::DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    bool has = false;
    if (context.has_input(0)) {
      const Value v = input_value_of(context, 0);
      has = v.kind() != Value::Kind::Optional || v.has_value();
    }
    const std::uint8_t flag = has ? 1 : 0;
    set_output_value(context, 0, Value(Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {flag})));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optional_has_element(const NodeInfo& node) {
  if (node.opset() < 18 && !node.has_input(0)) node.fail_invalid("input 0 is required before opset 18");
  return std::make_unique<OptionalHasElement>();
}

}  // namespace onemodel
