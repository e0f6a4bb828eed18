// SequenceErase (opset 11+): the sequence without element `position` (the last when omitted);
// position in [-n, n) (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

using namespace sequence_ops;

class SequenceErase final : public DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    const Value sequence = sequence_input(context, 0);
    std::vector<Tensor> elements = sequence.elements();
    std::int64_t position = -1;
    if (context.has_input(1)) position = read_position(context.node(), context.input(1));
    const std::size_t at = normalize_position(context.node(), position, elements.size(), false);
    elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(at));
    set_output_value(context, 0, Value::sequence(sequence.element_type(), std::move(elements)));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_erase(const NodeInfo&) { return std::make_unique<SequenceErase>(); }

}  // namespace onemodel
