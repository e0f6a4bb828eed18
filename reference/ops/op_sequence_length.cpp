// SequenceLength (opset 11+): the number of elements, an int64 scalar (spec/ops/control-flow.md
// section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class SequenceLength final : public sequence_ops::DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    const Value sequence = sequence_ops::sequence_input(context, 0);
    const auto n = static_cast<std::int64_t>(sequence.elements().size());
    set_output_value(context, 0, Value(Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {n})));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_length(const NodeInfo&) { return std::make_unique<SequenceLength>(); }

}  // namespace onemodel
