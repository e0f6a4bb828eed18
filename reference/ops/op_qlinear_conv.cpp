// QLinearConv (opset 10; spec/ops/quantization.md section 12, from int8.md "Operators" and the
// ONNX schema): the integer convolution of (x - x_zero_point) and (w - w_zero_point) (section 7),
// plus the optional int32 bias, requantized to y_zero_point's type (section 10). w's scale and
// zero point may be per output channel. Window geometry is Conv's (conv_geometry.hpp).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel {
namespace {

class QLinearConv final : public OpKernel {
 public:
  explicit QLinearConv(const NodeInfo& node)
      : window_(conv_geometry::read_window_attributes(node, false)), group_(node.get_int("group", 1)) {
    if (group_ < 1) node.fail_invalid("group must be positive");
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    for (std::size_t i : {0u, 2u, 3u, 5u, 7u}) {
      if (!context.has_input(i)) node.fail_invalid("input " + std::to_string(i) + " is required");
      context.require_type(i, {DType::U8, DType::I8});
    }
    for (std::size_t i : {1u, 4u, 6u}) context.require_type(i, {DType::F32});
    if (context.input_type(2) != context.input_type(0)) node.fail_invalid("x_zero_point's type differs from x's");
    if (context.input_type(5) != context.input_type(3)) node.fail_invalid("w_zero_point's type differs from w's");
    const auto g = quant::integer_conv_geometry(node, window_, group_, context.input_shape(0), context.input_shape(3));
    quant::check_per_index(node, context.input_shape(1), 1, "x_scale");
    quant::check_per_index(node, context.input_shape(2), 1, "x_zero_point");
    quant::check_per_index(node, context.input_shape(4), g.m, "w_scale");
    quant::check_per_index(node, context.input_shape(5), g.m, "w_zero_point");
    quant::check_per_index(node, context.input_shape(6), 1, "y_scale");
    quant::check_per_index(node, context.input_shape(7), 1, "y_zero_point");
    if (context.has_input(8)) {
      context.require_type(8, {DType::I32});
      const Shape& b = context.input_shape(8);
      if (b.rank() != 1 || b[0] != g.m) node.fail_invalid("B must be 1-D with M elements");
    }
    context.set_output(0, context.input_type(7), conv_geometry::output_shape(node, context.input_shape(0), g.m, g.axes));
  }
  void run(RunContext& context) const override {
    const auto g = quant::integer_conv_geometry(context.node(), window_, group_, context.input(0).shape(), context.input(3).shape());
    const float sx = quant::floats_of(context.input(1))[0];
    const std::int64_t zx = quant::integers_of(context.input(2))[0];
    const std::vector<float> sw = quant::floats_of(context.input(4));
    const quant::PerIndex zw = quant::per_index_of(context.input(5));
    const float sy = quant::floats_of(context.input(6))[0];
    const std::int64_t zy = quant::integers_of(context.input(7))[0];
    const quant::PerIndex bias = context.has_input(8) ? quant::per_index_of(context.input(8)) : quant::PerIndex{};
    const auto c = quant::integer_conv(g, quant::integers_of(context.input(0)), quant::integers_of(context.input(3)), zx, zw);
    const quant::Range range = quant::range_of(context.output(0).dtype());
    const std::int64_t plane = g.axes[0].out * g.axes[1].out * g.axes[2].out;
    std::vector<std::int64_t> y(c.size());
    for (std::size_t idx = 0; idx < c.size(); ++idx) {
      const std::int64_t oc = plane == 0 ? 0 : (static_cast<std::int64_t>(idx) / plane) % g.m;
      const float mult = quant::requant_multiplier(sx, sw[sw.size() == 1 ? 0 : static_cast<std::size_t>(oc)], sy);
      // Section 12: the bias is added to the int32 accumulator first (modulo 2^32, section 7).
      const std::int32_t acc = quant::wrap_to_int32(static_cast<std::int64_t>(c[idx]) + bias.at(oc));
      y[idx] = quant::requantize(acc, mult, zy, range);
    }
    quant::store_integers(context.output(0), y);
  }

 private:
  conv_geometry::WindowAttributes window_;
  std::int64_t group_;
};

}  // namespace

std::unique_ptr<OpKernel> make_qlinear_conv(const NodeInfo& node) { return std::make_unique<QLinearConv>(node); }

}  // namespace onemodel
