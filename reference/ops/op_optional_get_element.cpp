// OptionalGetElement (opset 15+): the value an optional holds (an empty optional is InvalidInput);
// from opset 18 a tensor or a sequence passes through unchanged (spec/ops/control-flow.md
// section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class OptionalGetElement final : public sequence_ops::DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    const Value v = input_value_of(context, 0);
    if (v.kind() != Value::Kind::Optional) {
      if (context.node().opset() < 18) context.node().fail_invalid("input 0 is not an optional");
      set_output_value(context, 0, v);
      return;
    }
    if (!v.has_value()) shape_ops::fail_index(context.node(), "the optional is empty");
    set_output_value(context, 0, v.value());
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optional_get_element(const NodeInfo&) { return std::make_unique<OptionalGetElement>(); }

}  // namespace onemodel
