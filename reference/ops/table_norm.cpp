// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp. Opsets as in
// spec/ops/norms.md section 1 (upper bound: the newest opset the library imports).
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_arg_max(const NodeInfo&);
std::unique_ptr<OpKernel> make_arg_min(const NodeInfo&);
std::unique_ptr<OpKernel> make_cum_sum(const NodeInfo&);
std::unique_ptr<OpKernel> make_group_normalization_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_group_normalization_21(const NodeInfo&);
std::unique_ptr<OpKernel> make_hardmax_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_hardmax_13(const NodeInfo&);
std::unique_ptr<OpKernel> make_instance_normalization(const NodeInfo&);
std::unique_ptr<OpKernel> make_layer_normalization(const NodeInfo&);
std::unique_ptr<OpKernel> make_log_softmax_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_log_softmax_13(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_l1_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_l1_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_l2_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_l2_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_log_sum_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_log_sum_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_log_sum_exp_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_log_sum_exp_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_max_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_max_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_mean_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_mean_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_min_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_min_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_prod_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_prod_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_sum_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_sum_13(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_sum_square_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_sum_square_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_rms_normalization(const NodeInfo&);
std::unique_ptr<OpKernel> make_softmax_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_softmax_13(const NodeInfo&);

std::span<const OpDef> norm_ops() {
  static const std::vector<OpDef> rows = {
      {"", "ArgMax", 1, 27, make_arg_max},
      {"", "ArgMin", 1, 27, make_arg_min},
      {"", "CumSum", 11, 27, make_cum_sum},
      {"", "GroupNormalization", 18, 20, make_group_normalization_18},
      {"", "GroupNormalization", 21, 27, make_group_normalization_21},
      {"", "Hardmax", 1, 12, make_hardmax_1},
      {"", "Hardmax", 13, 27, make_hardmax_13},
      {"", "InstanceNormalization", 6, 27, make_instance_normalization},
      {"", "LayerNormalization", 17, 27, make_layer_normalization},
      {"", "LogSoftmax", 1, 12, make_log_softmax_1},
      {"", "LogSoftmax", 13, 27, make_log_softmax_13},
      {"", "ReduceL1", 1, 17, make_reduce_l1_1},
      {"", "ReduceL1", 18, 27, make_reduce_l1_18},
      {"", "ReduceL2", 1, 17, make_reduce_l2_1},
      {"", "ReduceL2", 18, 27, make_reduce_l2_18},
      {"", "ReduceLogSum", 1, 17, make_reduce_log_sum_1},
      {"", "ReduceLogSum", 18, 27, make_reduce_log_sum_18},
      {"", "ReduceLogSumExp", 1, 17, make_reduce_log_sum_exp_1},
      {"", "ReduceLogSumExp", 18, 27, make_reduce_log_sum_exp_18},
      {"", "ReduceMax", 1, 17, make_reduce_max_1},
      {"", "ReduceMax", 18, 27, make_reduce_max_18},
      {"", "ReduceMean", 1, 17, make_reduce_mean_1},
      {"", "ReduceMean", 18, 27, make_reduce_mean_18},
      {"", "ReduceMin", 1, 17, make_reduce_min_1},
      {"", "ReduceMin", 18, 27, make_reduce_min_18},
      {"", "ReduceProd", 1, 17, make_reduce_prod_1},
      {"", "ReduceProd", 18, 27, make_reduce_prod_18},
      {"", "ReduceSum", 1, 12, make_reduce_sum_1},
      {"", "ReduceSum", 13, 27, make_reduce_sum_13},
      {"", "ReduceSumSquare", 1, 17, make_reduce_sum_square_1},
      {"", "ReduceSumSquare", 18, 27, make_reduce_sum_square_18},
      {"", "RMSNormalization", 23, 27, make_rms_normalization},
      {"", "Softmax", 1, 12, make_softmax_1},
      {"", "Softmax", 13, 27, make_softmax_13},
  };
  return rows;
}

}  // namespace onemodel
