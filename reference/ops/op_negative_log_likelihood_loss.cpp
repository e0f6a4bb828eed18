// NegativeLogLikelihoodLoss (opsets 12+): spec/ops/losses.md section 4. The input already holds
// log-probabilities [N, C, d1..dk]; the loss is the gather-weight-reduce of section 3. Exact: only
// negation, one multiplication and the canonical sum, in the stated order (section 3).
#include "reference/ops/loss_helpers.hpp"

namespace onemodel {
namespace {

using namespace losses;

class NegativeLogLikelihoodLoss final : public OpKernel {
 public:
  explicit NegativeLogLikelihoodLoss(LossAttributes attributes) : attributes_(attributes) {}
  void infer(InferContext& context) const override { infer_loss_output(context, attributes_); }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) compute<double>(context);
    else compute<float>(context);
  }

 private:
  template <class T>
  void compute(RunContext& context) const {
    const NodeInfo& node = context.node();
    const Tensor x = context.input(0).contiguous();
    const std::vector<std::int64_t> targets = shape_ops::read_ints(node, context.input(1), "target");
    std::vector<T> weight;
    if (context.has_input(2)) weight = context.input(2).to_vector<T>();
    const Shape& shape = x.shape();
    negative_log_likelihood<T>(node, attributes_, x.data<T>().data(), shape[0], shape[1], inner_extent(shape, 2),
                               targets, context.has_input(2) ? weight.data() : nullptr,
                               context.output(0).mutable_data<T>().data());
  }
  LossAttributes attributes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_negative_log_likelihood_loss(const NodeInfo& node) {
  return std::make_unique<NegativeLogLikelihoodLoss>(read_loss_attributes(node));
}

}  // namespace onemodel
