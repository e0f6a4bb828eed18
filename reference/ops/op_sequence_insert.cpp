// SequenceInsert (opset 11+): the sequence with the tensor inserted before `position` (at the end
// when omitted); position in [-n, n]; the tensor's type must be the sequence's
// (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

using namespace sequence_ops;

class SequenceInsert final : public DataDependentKernel {
 public:
  void run(RunContext& context) const override {
    const Value sequence = sequence_input(context, 0);
    const Tensor& tensor = context.input(1);
    std::vector<Tensor> elements = sequence.elements();
    if (tensor.dtype() != sequence.element_type()) {
      context.node().fail_invalid("a " + std::string(dtype_name(tensor.dtype())) + " tensor inserted into a sequence of " +
                                  std::string(dtype_name(sequence.element_type())));
    }
    std::size_t at = elements.size();
    if (context.has_input(2)) {
      at = normalize_position(context.node(), read_position(context.node(), context.input(2)), elements.size(), true);
    }
    elements.insert(elements.begin() + static_cast<std::ptrdiff_t>(at), tensor.contiguous());
    set_output_value(context, 0, Value::sequence(sequence.element_type(), std::move(elements)));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_insert(const NodeInfo&) { return std::make_unique<SequenceInsert>(); }

}  // namespace onemodel
