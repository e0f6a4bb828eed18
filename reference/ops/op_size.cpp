// Size: the input's element count as an int64 scalar, a constant of the plan
// (spec/ops/shape-indexing.md section 2, Size).
#include "core/graph/op_kernel.hpp"

namespace onemodel {
namespace {

class SizeOp final : public OpKernel {
 public:
  SizeOp() { string_elements = true; }  // reads the shape only (spec/tensors.md section 8)
  void infer(InferContext& context) const override {
    const std::int64_t count = context.input_shape(0).element_count();
    context.set_constant_output(0, Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {count}));
  }
  void run(RunContext&) const override {}  // never run: the output is a constant
};

}  // namespace

std::unique_ptr<OpKernel> make_size(const NodeInfo&) { return std::make_unique<SizeOp>(); }

}  // namespace onemodel
