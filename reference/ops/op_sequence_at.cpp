// SequenceAt (opset 11+): element `position` of the sequence, negative positions counted from the
// end; outside [-n, n) is InvalidInput (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

using namespace sequence_ops;

class SequenceAt final : public DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    const Value sequence = sequence_input(context, 0);
    const std::int64_t position = read_position(context.node(), context.input(1));
    const std::size_t k = normalize_position(context.node(), position, sequence.elements().size(), false);
    set_output_value(context, 0, Value(sequence.elements()[k]));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_at(const NodeInfo&) { return std::make_unique<SequenceAt>(); }

}  // namespace onemodel
