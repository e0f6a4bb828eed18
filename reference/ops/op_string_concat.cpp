// StringConcat (opset 20): y = x + y element-wise over STRING tensors with NumPy broadcasting
// (spec/ops/strings.md section 3). The bytes of the first input, then those of the second.
#include <string>
#include <vector>

#include "reference/ops/elementwise_broadcast.hpp"

namespace onemodel {
namespace {

class StringConcat final : public OpKernel {
 public:
  StringConcat() { string_elements = true; }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::String});
    context.require_type(1, {DType::String});
    context.set_output(0, DType::String, ew::broadcast_inputs(context, {0, 1}));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const std::vector<std::string> a = ew::read_broadcast<std::string>(context.input(0), out.shape());
    const std::vector<std::string> b = ew::read_broadcast<std::string>(context.input(1), out.shape());
    std::span<std::string> y = out.mutable_data<std::string>();
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a[i] + b[i];
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_string_concat(const NodeInfo&) { return std::make_unique<StringConcat>(); }

}  // namespace onemodel
