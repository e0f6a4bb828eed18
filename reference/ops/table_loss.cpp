// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_negative_log_likelihood_loss(const NodeInfo& node);
std::unique_ptr<OpKernel> make_softmax_cross_entropy_loss(const NodeInfo& node);

std::span<const OpDef> loss_ops() {
  static const std::vector<OpDef> rows = {
      {"", "NegativeLogLikelihoodLoss", 12, 25, make_negative_log_likelihood_loss},
      {"", "SoftmaxCrossEntropyLoss", 12, 25, make_softmax_cross_entropy_loss},
  };
  return rows;
}

}  // namespace onemodel
