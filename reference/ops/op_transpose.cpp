// Transpose: output axis i is input axis perm[i]; `perm` defaults to the reversed axes
// (spec/ops/shape-indexing.md section 2, Transpose). A copy through a permuted view.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Transpose final : public OpKernel {
 public:
  explicit Transpose(std::optional<std::vector<std::int64_t>> perm) : perm_(std::move(perm)) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Shape& in = context.input_shape(0);
    const std::vector<int> order = permutation(context.node(), in.rank());
    std::vector<std::int64_t> out;
    for (int a : order) out.push_back(in[a]);
    context.set_output(0, context.input_type(0), make_shape(context.node(), out));
  }
  void run(RunContext& context) const override {
    const Tensor& in = context.input(0);
    const std::vector<int> order = permutation(context.node(), in.rank());
    copy_view_into(in.permute(order), context.output(0));
  }

 private:
  std::vector<int> permutation(const NodeInfo& node, int rank) const {
    std::vector<int> order;
    if (!perm_) {
      for (int d = rank - 1; d >= 0; --d) order.push_back(d);
      return order;
    }
    if (static_cast<int>(perm_->size()) != rank) node.fail_invalid("perm has " + std::to_string(perm_->size()) + " entries for rank " + std::to_string(rank));
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (std::int64_t p : *perm_) {
      const int axis = normalize_axis(node, p, rank);
      if (seen[static_cast<std::size_t>(axis)]) node.fail_invalid("perm repeats axis " + std::to_string(p));
      seen[static_cast<std::size_t>(axis)] = true;
      order.push_back(axis);
    }
    return order;
  }
  std::optional<std::vector<std::int64_t>> perm_;
};

}  // namespace

std::unique_ptr<OpKernel> make_transpose(const NodeInfo& node) {
  std::optional<std::vector<std::int64_t>> perm;
  if (node.has("perm")) perm = node.get_ints("perm");
  return std::make_unique<Transpose>(std::move(perm));
}

}  // namespace onemodel
