// Cast (opset 6 on): every element converted to the element type `to` (spec/ops/elementwise.md
// section 7). A target type the library does not store is Unsupported naming the ONNX type. The
// opset 19 attribute `saturate` and the opset 25 `round_mode` concern only the float8 and 4-bit
// types, which are not stored, so they are read by nothing.
#include <string>

#include "reference/ops/cast_convert.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

class CastKernel final : public OpKernel {
 public:
  explicit CastKernel(DType to) : to_(to) { string_elements = true; }  // spec/ops/strings.md section 1
  void infer(InferContext& context) const override {
    ew::require(context, 0, ew::StringAndStoredTypes{});
    context.set_output(0, to_, context.input_shape(0));
  }
  void run(RunContext& context) const override { ew::convert_tensor(context.input(0), context.output(0)); }

 private:
  DType to_;
};

}  // namespace

std::unique_ptr<OpKernel> make_cast(const NodeInfo& node) {
  const std::int64_t to = node.required_int("to");
  if (to < 0 || to > 0x7FFFFFFF || !dtype_is_stored(static_cast<std::int32_t>(to))) {
    node.fail_unsupported("Cast to ONNX element type " + std::string(onnx_type_name(static_cast<std::int32_t>(to))) +
                          " (" + std::to_string(to) + ") is not supported");
  }
  return std::make_unique<CastKernel>(static_cast<DType>(to));
}

}  // namespace onemodel
