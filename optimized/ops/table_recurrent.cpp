// Optimized overrides of the recurrent family: RNN, GRU and LSTM on the shared float32 GEMM
// (optimized/ops/recurrent_override.hpp). Ranges equal the reference rows
// (reference/ops/table_recurrent.cpp: 7..27).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_rnn_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_gru_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_lstm_optimized(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> recurrent_optimized_ops() {
  static const OptimizedOpDef kOps[] = {
      {"", "GRU", 7, 27, make_gru_optimized},
      {"", "LSTM", 7, 27, make_lstm_optimized},
      {"", "RNN", 7, 27, make_rnn_optimized},
  };
  return kOps;
}

}  // namespace onemodel::opt
