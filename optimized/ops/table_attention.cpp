// Optimized overrides of the attention family: Softmax, LogSoftmax (optimized/kernels/softmax/)
// and Attention (optimized/kernels/attention/). Each opset range lies inside the reference row's
// range (reference/ops/table_norm.cpp, table_attention.cpp).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_attention(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_log_softmax_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_log_softmax_13(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_softmax_1(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_softmax_13(const NodeInfo&, const OptimizedConfig&);

std::span<const OptimizedOpDef> attention_optimized_ops() {
  static const OptimizedOpDef kOps[] = {
      {"", "Attention", 23, 24, make_optimized_attention},
      {"", "LogSoftmax", 1, 12, make_optimized_log_softmax_1},
      {"", "LogSoftmax", 13, 27, make_optimized_log_softmax_13},
      {"", "Softmax", 1, 12, make_optimized_softmax_1},
      {"", "Softmax", 13, 27, make_optimized_softmax_13},
  };
  return kOps;
}

}  // namespace onemodel::opt
