// Identity: the output is the input (spec/ops/shape-indexing.md, Identity). A view of its input.
#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"

namespace onemodel {
namespace {

class Identity final : public OpKernel {
 public:
  Identity() {
    view_of_input = true;
    string_elements = true;  // copies elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    context.input(0).copy_elements_to(context.output(0));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_identity(const NodeInfo&) { return std::make_unique<Identity>(); }

}  // namespace onemodel
