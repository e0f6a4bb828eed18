// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_rnn(const NodeInfo& node);
std::unique_ptr<OpKernel> make_gru(const NodeInfo& node);
std::unique_ptr<OpKernel> make_lstm(const NodeInfo& node);

std::span<const OpDef> recurrent_ops() {
  // spec/ops/recurrent.md section 1: opsets 7 to 25 are one implementation each.
  static const std::vector<OpDef> rows = {
      {"", "GRU", 7, 27, make_gru, "F32"},
      {"", "LSTM", 7, 27, make_lstm, "F32"},
      {"", "RNN", 7, 27, make_rnn, "F32"},
  };
  return rows;
}

}  // namespace onemodel
