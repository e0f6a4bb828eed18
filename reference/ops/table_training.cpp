// The training optimizers of the ai.onnx.preview.training domain, version 1
// (spec/ops/training.md). Each row's factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_adagrad(const NodeInfo&);
std::unique_ptr<OpKernel> make_adam(const NodeInfo&);
std::unique_ptr<OpKernel> make_momentum(const NodeInfo&);

std::span<const OpDef> training_ops() {
  static const std::vector<OpDef> rows = {
      {"ai.onnx.preview.training", "Adagrad", 1, 1, make_adagrad, "F32 F64"},  // the type of X (input 2)
      {"ai.onnx.preview.training", "Adam", 1, 1, make_adam, "F32 F64"},
      {"ai.onnx.preview.training", "Momentum", 1, 1, make_momentum, "F32 F64"},
  };
  return rows;
}

}  // namespace onemodel
