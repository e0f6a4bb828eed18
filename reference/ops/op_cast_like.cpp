// CastLike (opset 15 on): input 0 converted, by Cast's rules, to the element type of input 1,
// whose values are never read (spec/ops/elementwise.md section 7).
#include "reference/ops/cast_convert.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

class CastLikeKernel final : public OpKernel {
 public:
  CastLikeKernel() { string_elements = true; }  // spec/ops/strings.md section 1
  void infer(InferContext& context) const override {
    ew::require(context, 0, ew::StringAndStoredTypes{});
    ew::require(context, 1, ew::StringAndStoredTypes{});
    context.set_output(0, context.input_type(1), context.input_shape(0));
  }
  void run(RunContext& context) const override { ew::convert_tensor(context.input(0), context.output(0)); }
};

}  // namespace

std::unique_ptr<OpKernel> make_cast_like(const NodeInfo&) { return std::make_unique<CastLikeKernel>(); }

}  // namespace onemodel
