// ConvInteger (opset 10; spec/ops/quantization.md section 9, from int8.md "Operators" and the
// ONNX schema): the convolution of (x - x_zero_point) and (w - w_zero_point) for uint8 and int8
// operands in any mix, int32 result (section 7: exact, stored modulo 2^32). The window geometry
// is Conv's (reference/ops/conv_geometry.hpp); one to three spatial axes.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel {
namespace {

class ConvInteger final : public OpKernel {
 public:
  explicit ConvInteger(const NodeInfo& node)
      : window_(conv_geometry::read_window_attributes(node, false)), group_(node.get_int("group", 1)) {
    if (group_ < 1) node.fail_invalid("group must be positive");
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::U8, DType::I8});
    context.require_type(1, {DType::U8, DType::I8});
    const auto g = quant::integer_conv_geometry(context.node(), window_, group_, context.input_shape(0), context.input_shape(1));
    // Section 9: x_zero_point is one value; w_zero_point one value or one per output channel.
    if (context.has_input(2)) {
      if (context.input_type(2) != context.input_type(0)) context.node().fail_invalid("x_zero_point's type differs from x's");
      quant::check_per_index(context.node(), context.input_shape(2), 1, "x_zero_point");
    }
    if (context.has_input(3)) {
      if (context.input_type(3) != context.input_type(1)) context.node().fail_invalid("w_zero_point's type differs from w's");
      quant::check_per_index(context.node(), context.input_shape(3), g.m, "w_zero_point");
    }
    context.set_output(0, DType::I32, conv_geometry::output_shape(context.node(), context.input_shape(0), g.m, g.axes));
  }
  void run(RunContext& context) const override {
    const auto g = quant::integer_conv_geometry(context.node(), window_, group_, context.input(0).shape(), context.input(1).shape());
    const std::int64_t zx = context.has_input(2) ? quant::integers_of(context.input(2))[0] : 0;
    const quant::PerIndex zw = context.has_input(3) ? quant::per_index_of(context.input(3)) : quant::PerIndex{};
    const auto c = quant::integer_conv(g, quant::integers_of(context.input(0)), quant::integers_of(context.input(1)), zx, zw);
    auto y = context.output(0).mutable_data<std::int32_t>();
    std::copy(c.begin(), c.end(), y.begin());
  }

 private:
  conv_geometry::WindowAttributes window_;
  std::int64_t group_;
};

}  // namespace

std::unique_ptr<OpKernel> make_conv_integer(const NodeInfo& node) { return std::make_unique<ConvInteger>(node); }

}  // namespace onemodel
