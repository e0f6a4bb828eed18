// SequenceConstruct (opset 11+): a sequence of the inputs in order, all of one element type
// (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class SequenceConstruct final : public sequence_ops::DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    std::vector<Tensor> elements;
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      if (!context.has_input(i)) context.node().fail_invalid("input " + std::to_string(i) + " is omitted");
      const Tensor& t = context.input(i);
      if (t.dtype() != context.input(0).dtype()) {
        context.node().fail_invalid("inputs of types " + std::string(dtype_name(context.input(0).dtype())) + " and " +
                                    std::string(dtype_name(t.dtype())) + ": a sequence holds one element type");
      }
      elements.push_back(t.contiguous());
    }
    if (elements.empty()) context.node().fail_invalid("needs at least one input");
    const DType type = elements[0].dtype();
    set_output_value(context, 0, Value::sequence(type, std::move(elements)));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_construct(const NodeInfo&) { return std::make_unique<SequenceConstruct>(); }

}  // namespace onemodel
