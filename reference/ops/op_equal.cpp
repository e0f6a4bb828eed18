// Equal: a == b with broadcasting, Bool output (spec/ops/elementwise.md section 5). NaN equals nothing, itself included; -0 == +0.
// From opset 19 both inputs may be STRING: equal when their bytes are equal (spec/ops/strings.md
// section 2).
#include <string>
#include <vector>

#include "reference/ops/elementwise_broadcast.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct EqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept {
    return a == b;
  }
};

// The numeric kernel, with STRING inputs served here. Before opset 19 string_elements is false, so
// the engines refuse STRING inputs before infer() sees them (infer_node).
class EqualWithStrings final : public OpKernel {
 public:
  EqualWithStrings(std::unique_ptr<OpKernel> numeric, bool strings)
      : numeric_(std::move(numeric)), strings_(strings) {
    string_elements = strings;
    supports_exact = numeric_->supports_exact;
  }
  void infer(InferContext& context) const override {
    const bool a = context.input_type(0) == DType::String;
    const bool b = context.input_type(1) == DType::String;
    if (!a && !b) {
      numeric_->infer(context);
      return;
    }
    // spec/ops/strings.md section 2: both inputs STRING, or neither.
    if (!a || !b) context.node().fail_invalid("Equal compares STRING only with STRING");
    context.set_output(0, DType::Bool, ew::broadcast_inputs(context, {0, 1}));
  }
  void run(RunContext& context) const override {
    if (!strings_ || context.input(0).dtype() != DType::String) {
      numeric_->run(context);
      return;
    }
    const Tensor& out = context.output(0);
    const std::vector<std::string> a = ew::read_broadcast<std::string>(context.input(0), out.shape());
    const std::vector<std::string> b = ew::read_broadcast<std::string>(context.input(1), out.shape());
    std::span<std::uint8_t> y = out.mutable_data<std::uint8_t>();
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a[i] == b[i] ? 1 : 0;
  }

 private:
  std::unique_ptr<OpKernel> numeric_;
  bool strings_;
};

}  // namespace

std::unique_ptr<OpKernel> make_equal(const NodeInfo& node) {
  return std::make_unique<EqualWithStrings>(ew::make_comparison<ew::NumericAndBoolTypes>(EqualFn{}), node.opset() >= 19);
}

}  // namespace onemodel
