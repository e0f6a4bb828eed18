// ConcatFromSequence (opset 11+): the elements joined along `axis` (spec/ops/control-flow.md
// section 2). new_axis = 1 stacks them on a new axis at `axis`, which may then be in [-r-1, r].
// Every other extent must agree; an empty sequence is InvalidInput (there is no shape to give).
#include "reference/ops/sequence_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class ConcatFromSequence final : public sequence_ops::DataDependentKernel {
 public:
  ConcatFromSequence(std::int64_t axis, bool new_axis) : axis_(axis), new_axis_(new_axis) {}
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Value sequence = sequence_ops::sequence_input(context, 0);
    const std::vector<Tensor>& elements = sequence.elements();
    if (elements.empty()) fail_index(node, "the sequence is empty");
    const Shape& first = elements[0].shape();
    const int rank = first.rank();
    const int out_rank = new_axis_ ? rank + 1 : rank;
    if (out_rank == 0) node.fail_invalid("cannot concatenate scalars without new_axis");
    const int axis = normalize_axis(node, axis_, out_rank);
    // Each element seen with the joined axis present: [.., 1, ..] when stacking.
    std::vector<Tensor> parts;
    std::int64_t joined = 0;
    for (std::size_t k = 0; k < elements.size(); ++k) {
      Tensor part = new_axis_ ? elements[k].unsqueeze(axis) : elements[k];
      const Shape& s = part.shape();
      if (s.rank() != out_rank) node.fail_invalid("element " + std::to_string(k) + " has another rank");
      for (int d = 0; d < out_rank; ++d) {
        const Shape& reference = parts.empty() ? s : parts[0].shape();
        if (d != axis && s[d] != reference[d]) {
          fail_index(node, "element " + std::to_string(k) + " has shape " + elements[k].shape().to_string() +
                               ", element 0 " + first.to_string());
        }
      }
      joined += s[axis];
      parts.push_back(part.contiguous());
    }
    std::vector<std::int64_t> extents = extents_of(parts[0].shape());
    extents[static_cast<std::size_t>(axis)] = joined;
    const Shape out_shape = make_shape(node, extents);
    const Tensor& out = context.allocate_output(0, sequence.element_type(), out_shape);
    // Row-major: for each index before the axis, each part contributes one contiguous block.
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= out_shape[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < out_rank; ++d) inner *= out_shape[d];
    // Elements, not bytes: STRING parts are assigned (spec/tensors.md section 8).
    const TargetElements o(out);
    std::int64_t at = 0;
    for (std::int64_t i = 0; i < outer; ++i) {
      for (const Tensor& part : parts) {
        const std::int64_t block = part.shape()[axis] * inner;
        move_elements(o, at, SourceElements(part), i * block, block);
        at += block;
      }
    }
  }

 private:
  std::int64_t axis_;
  bool new_axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_concat_from_sequence(const NodeInfo& node) {
  return std::make_unique<ConcatFromSequence>(node.required_int("axis"), node.get_int("new_axis", 0) != 0);
}

}  // namespace onemodel
