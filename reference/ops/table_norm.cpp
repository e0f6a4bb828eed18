// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp. Opsets as in
// spec/ops/norms.md section 1 (upper bound: the newest opset the library imports).
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_lrn(const NodeInfo&);
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
std::unique_ptr<OpKernel> make_reduce_max_20(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_mean_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_mean_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_min_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_min_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_reduce_min_20(const NodeInfo&);
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
      {"", "ArgMax", 1, 27, make_arg_max, "F32 F64 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "ArgMin", 1, 27, make_arg_min, "F32 F64 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "CumSum", 11, 27, make_cum_sum, "F32 F64 I32 I64 U32 U64"},
      {"", "GroupNormalization", 18, 20, make_group_normalization_18, "F32 F64"},
      {"", "GroupNormalization", 21, 27, make_group_normalization_21, "F32 F64"},
      {"", "Hardmax", 1, 12, make_hardmax_1, "F32 F64"},
      {"", "Hardmax", 13, 27, make_hardmax_13, "F32 F64"},
      {"", "InstanceNormalization", 6, 27, make_instance_normalization, "F32 F64"},
      {"", "LayerNormalization", 17, 27, make_layer_normalization, "F32 F64"},
      {"", "LRN", 1, 27, make_lrn, "F32 F64"},
      {"", "LogSoftmax", 1, 12, make_log_softmax_1, "F32 F64"},
      {"", "LogSoftmax", 13, 27, make_log_softmax_13, "F32 F64"},
      {"", "ReduceL1", 1, 17, make_reduce_l1_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceL1", 18, 27, make_reduce_l1_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceL2", 1, 17, make_reduce_l2_1, "F32 F64"},
      {"", "ReduceL2", 18, 27, make_reduce_l2_18, "F32 F64"},
      {"", "ReduceLogSum", 1, 17, make_reduce_log_sum_1, "F32 F64"},
      {"", "ReduceLogSum", 18, 27, make_reduce_log_sum_18, "F32 F64"},
      {"", "ReduceLogSumExp", 1, 17, make_reduce_log_sum_exp_1, "F32 F64"},
      {"", "ReduceLogSumExp", 18, 27, make_reduce_log_sum_exp_18, "F32 F64"},
      {"", "ReduceMax", 1, 17, make_reduce_max_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMax", 18, 19, make_reduce_max_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMax", 20, 27, make_reduce_max_20, "F32 F64 I8 I32 I64 U8 U32 U64 Bool"},
      {"", "ReduceMean", 1, 17, make_reduce_mean_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMean", 18, 27, make_reduce_mean_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMin", 1, 17, make_reduce_min_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMin", 18, 19, make_reduce_min_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceMin", 20, 27, make_reduce_min_20, "F32 F64 I8 I32 I64 U8 U32 U64 Bool"},
      {"", "ReduceProd", 1, 17, make_reduce_prod_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceProd", 18, 27, make_reduce_prod_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceSum", 1, 12, make_reduce_sum_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceSum", 13, 27, make_reduce_sum_13, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceSumSquare", 1, 17, make_reduce_sum_square_1, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "ReduceSumSquare", 18, 27, make_reduce_sum_square_18, "F32 F64 I8 I32 I64 U8 U32 U64"},
      {"", "RMSNormalization", 23, 27, make_rms_normalization, "F32 F64"},
      {"", "Softmax", 1, 12, make_softmax_1, "F32 F64"},
      {"", "Softmax", 13, 27, make_softmax_13, "F32 F64"},
  };
  return rows;
}

}  // namespace onemodel
