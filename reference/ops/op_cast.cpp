// Cast (opset 6 on): every element converted to the element type `to` (spec/ops/elementwise.md
// section 7). A target type the library does not store is Unsupported naming the ONNX type. The
// opset 19 attribute `saturate` and the opset 24 `round_mode` concern the 8-bit float targets
// (section 7.1, reference/ops/cast_float8.cpp); the 4- and 2-bit types (cast_subbyte.hpp) have one
// rule whatever `saturate` says (spec/ops/elementwise.md section 7).
#include <string>

#include "reference/ops/cast_convert.hpp"
#include "reference/ops/cast_float8.hpp"
#include "core/tensor/subbyte.hpp"
#include "reference/ops/cast_subbyte.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

class CastKernel final : public OpKernel {
 public:
  // STRING sources and targets: spec/ops/strings.md section 1; the 8-bit floats: cast_float8.cpp.
  CastKernel(DType to, ew::Float8CastOptions float8) : to_(to), float8_(float8) { string_elements = true; }
  void infer(InferContext& context) const override {
    const DType t = context.input_type(0);
    if (!dtype_is_float8(t) && !dtype_is_subbyte(t)) ew::require(context, 0, ew::StringAndStoredTypes{});
    context.set_output(0, to_, context.input_shape(0));
  }
  void run(RunContext& context) const override {
    ew::cast_tensor(context.input(0), context.output(0), float8_);
  }

 private:
  DType to_;
  ew::Float8CastOptions float8_;
};

}  // namespace

std::unique_ptr<OpKernel> make_cast(const NodeInfo& node) {
  const std::int64_t to = node.required_int("to");
  if (to < 0 || to > 0x7FFFFFFF || !dtype_is_stored(static_cast<std::int32_t>(to))) {
    node.fail_unsupported("Cast to ONNX element type " + std::string(onnx_type_name(static_cast<std::int32_t>(to))) +
                          " (" + std::to_string(to) + ") is not supported");
  }
  const auto type = static_cast<DType>(to);
  // The 8-bit floats enter Cast's type list at opset 19, FLOAT8E8M0 at opset 24 (ONNX schemas).
  if (dtype_is_float8(type) && node.opset() < (type == DType::F8E8M0 ? 24 : 19)) {
    node.fail_invalid("Cast to " + std::string(onnx_type_name(static_cast<std::int32_t>(to))) + " needs opset " +
                      (type == DType::F8E8M0 ? "24" : "19") + " or later");
  }
  return std::make_unique<CastKernel>(type, ew::read_float8_cast_options(node));
}

}  // namespace onemodel
