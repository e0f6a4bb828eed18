// CastLike (opset 15 on): input 0 converted, by Cast's rules, to the element type of input 1,
// whose values are never read (spec/ops/elementwise.md section 7); `saturate` (opset 19 on) and
// `round_mode` (opset 24 on) as Cast's for 8-bit float targets (section 7.1).
#include "reference/ops/cast_convert.hpp"
#include "reference/ops/cast_float8.hpp"
#include "core/tensor/subbyte.hpp"
#include "reference/ops/cast_subbyte.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

class CastLikeKernel final : public OpKernel {
 public:
  // STRING sources and targets: spec/ops/strings.md section 1; the 8-bit floats: cast_float8.cpp.
  explicit CastLikeKernel(ew::Float8CastOptions float8) : float8_(float8) { string_elements = true; }
  void infer(InferContext& context) const override {
    for (std::size_t i = 0; i < 2; ++i) {
      const DType t = context.input_type(i);
      if (!dtype_is_float8(t) && !dtype_is_subbyte(t)) ew::require(context, i, ew::StringAndStoredTypes{});
    }
    context.set_output(0, context.input_type(1), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    ew::cast_tensor(context.input(0), context.output(0), float8_);
  }

 private:
  ew::Float8CastOptions float8_;
};

}  // namespace

std::unique_ptr<OpKernel> make_cast_like(const NodeInfo& node) {
  return std::make_unique<CastLikeKernel>(ew::read_float8_cast_options(node));
}

}  // namespace onemodel
