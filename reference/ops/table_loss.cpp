// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_negative_log_likelihood_loss(const NodeInfo& node);
std::unique_ptr<OpKernel> make_softmax_cross_entropy_loss(const NodeInfo& node);
std::unique_ptr<OpKernel> make_cum_prod(const NodeInfo& node);
std::unique_ptr<OpKernel> make_lp_normalization(const NodeInfo& node);
std::unique_ptr<OpKernel> make_mean_variance_normalization(const NodeInfo& node);
std::unique_ptr<OpKernel> make_det(const NodeInfo& node);

std::span<const OpDef> loss_ops() {
  static const std::vector<OpDef> rows = {
      {"", "NegativeLogLikelihoodLoss", 12, 27, make_negative_log_likelihood_loss, "F32 F64"},
      {"", "SoftmaxCrossEntropyLoss", 12, 27, make_softmax_cross_entropy_loss, "F32 F64"},
      // Operators placed in this family (spec/ops/losses.md sections 6-9).
      {"", "CumProd", 26, 26, make_cum_prod, "F32 F64 I32 I64 U32 U64"},
      {"", "LpNormalization", 1, 27, make_lp_normalization, "F32 F64"},
      {"", "MeanVarianceNormalization", 9, 27, make_mean_variance_normalization, "F32 F64"},
      {"", "Det", 11, 27, make_det, "F32 F64"},
  };
  return rows;
}

}  // namespace onemodel
