// Optimized overrides of the norm family: InstanceNormalization, LayerNormalization,
// RMSNormalization, BatchNormalization and the float32 reductions (optimized/kernels/layernorm/,
// optimized/kernels/batchnorm/, optimized/kernels/reduce/). Each opset range lies inside the
// reference row's range (reference/ops/table_norm.cpp; BatchNormalization:
// reference/ops/table_conv.cpp, 7-8 and 9-27).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_batch_normalization(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_instance_normalization(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_layer_normalization(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_l1_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_l1_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_l2_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_l2_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_log_sum_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_log_sum_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_max_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_max_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_mean_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_mean_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_min_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_min_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_sum_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_sum_13(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_sum_square_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_reduce_sum_square_18(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_rms_normalization(const NodeInfo&, const OptimizedConfig&);

std::span<const OptimizedOpDef> norm_optimized_ops() {
  static const OptimizedOpDef kOps[] = {
      {"", "BatchNormalization", 7, 8, make_optimized_batch_normalization},
      {"", "BatchNormalization", 9, 27, make_optimized_batch_normalization},
      {"", "InstanceNormalization", 6, 27, make_optimized_instance_normalization},
      {"", "LayerNormalization", 17, 27, make_optimized_layer_normalization},
      {"", "ReduceL1", 1, 17, make_optimized_reduce_l1_1},
      {"", "ReduceL1", 18, 27, make_optimized_reduce_l1_18},
      {"", "ReduceL2", 1, 17, make_optimized_reduce_l2_1},
      {"", "ReduceL2", 18, 27, make_optimized_reduce_l2_18},
      {"", "ReduceLogSum", 1, 17, make_optimized_reduce_log_sum_1},
      {"", "ReduceLogSum", 18, 27, make_optimized_reduce_log_sum_18},
      {"", "ReduceMax", 1, 17, make_optimized_reduce_max_1},
      {"", "ReduceMax", 18, 19, make_optimized_reduce_max_18},
      // The reference row of 20-27 adds bool, which the override hands to the reference kernel.
      {"", "ReduceMax", 20, 27, make_optimized_reduce_max_18},
      {"", "ReduceMean", 1, 17, make_optimized_reduce_mean_1},
      {"", "ReduceMean", 18, 27, make_optimized_reduce_mean_18},
      {"", "ReduceMin", 1, 17, make_optimized_reduce_min_1},
      {"", "ReduceMin", 18, 19, make_optimized_reduce_min_18},
      // The reference row of 20-27 adds bool, which the override hands to the reference kernel.
      {"", "ReduceMin", 20, 27, make_optimized_reduce_min_18},
      {"", "ReduceSum", 1, 12, make_optimized_reduce_sum_1},
      {"", "ReduceSum", 13, 27, make_optimized_reduce_sum_13},
      {"", "ReduceSumSquare", 1, 17, make_optimized_reduce_sum_square_1},
      {"", "ReduceSumSquare", 18, 27, make_optimized_reduce_sum_square_18},
      {"", "RMSNormalization", 23, 27, make_optimized_rms_normalization},
  };
  return kOps;
}

}  // namespace onemodel::opt
