// Where (opset 9): condition ? x : y with broadcasting of all three (spec/ops/elementwise.md
// section 5). The condition is Bool; x and y have one type, any stored type. A chosen float NaN
// is stored as the canonical NaN like every stored NaN (spec/ops/elementwise.md section 3).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

class WhereKernel final : public OpKernel {
 public:
  WhereKernel() { string_elements = true; }  // x and y may be STRING (ONNX Where, opset 9 onward)
  void infer(InferContext& context) const override {
    ew::require(context, 0, ew::BoolTypes{});
    if (context.input_type(1) != DType::String) ew::require(context, 1, ew::StoredTypes{});
    ew::require_same_type(context, 1, 2);
    context.set_output(0, context.input_type(1), ew::broadcast_inputs(context, {0, 1, 2}));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    if (out.dtype() == DType::String) return run_strings(context);
    ew::ElementReader<std::uint8_t> condition(context.input(0), out.shape());
    ew::dispatch(context.input(1).dtype(), ew::StoredTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      ew::ElementReader<S> x(context.input(1), out.shape());
      ew::ElementReader<S> y(context.input(2), out.shape());
      auto o = out.mutable_data<S>();
      for (std::size_t i = 0; i < o.size(); ++i) {
        const bool take_x = condition.next() != 0;
        const S xv = x.next();
        const S yv = y.next();
        o[i] = E::store(E::load(take_x ? xv : yv));
      }
    });
  }

 private:
  // STRING x and y (spec/tensors.md section 8): the chosen element is assigned.
  static void run_strings(RunContext& context) {
    const Tensor& out = context.output(0);
    const std::vector<std::uint8_t> condition = context.input(0).expand(out.shape()).to_vector<std::uint8_t>();
    const std::vector<std::string> x = context.input(1).expand(out.shape()).to_vector<std::string>();
    const std::vector<std::string> y = context.input(2).expand(out.shape()).to_vector<std::string>();
    const std::span<std::string> o = out.mutable_data<std::string>();
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = condition[i] != 0 ? x[i] : y[i];
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_where(const NodeInfo&) { return std::make_unique<WhereKernel>(); }

}  // namespace onemodel
