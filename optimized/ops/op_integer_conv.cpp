// ConvInteger and QLinearConv on the integer product kernel (spec-source int8.md "Convolution";
// optimized/ops/integer_conv_run.hpp): the int32 convolution from the kernel, then for
// QLinearConv the reference's own per-element bias addition (modulo 2^32) and requantization
// (quant::requant_multiplier with the output channel's weight scale, quant::requantize;
// spec/ops/quantization.md sections 10 and 12). Geometry, types and refusals are the reference's
// (its infer() and quant::integer_conv_geometry), so every output is the reference's bits on every
// path and thread count. A reduction longer than the kernel's bound runs the reference kernel.
#include <memory>
#include <vector>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/integer_conv_run.hpp"
#include "optimized/ops/integer_product_plan.hpp"

namespace onemodel::opt {
namespace {

bool conv_served(const quant::IntegerConvGeometry& g) {
  const std::int64_t taps = g.axes[0].kernel * g.axes[1].kernel * g.axes[2].kernel;
  return static_cast<std::size_t>(g.c / g.group * taps) <= int8::kMaxK;
}

class IntegerConvOptimized final : public OptimizedKernel {
 public:
  IntegerConvOptimized(const NodeInfo& node, const OptimizedConfig& config, bool qlinear)
      : OptimizedKernel(node, config),
        window_(conv_geometry::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        qlinear_(qlinear) {}

  void run(RunContext& context) const override {
    // Inputs: ConvInteger x, w, x_zero_point, w_zero_point; QLinearConv x, x_scale, x_zero_point,
    // w, w_scale, w_zero_point, y_scale, y_zero_point, bias.
    const std::size_t w_in = qlinear_ ? 3 : 1, zx_in = 2, zw_in = qlinear_ ? 5 : 3;
    const auto g = quant::integer_conv_geometry(context.node(), window_, group_, context.input(0).shape(),
                                                context.input(w_in).shape());
    if (!conv_served(g)) {
      run_reference(context);
      return;
    }
    const std::int32_t zx = context.has_input(zx_in) ? static_cast<std::int32_t>(quant::integers_of(context.input(zx_in))[0]) : 0;
    const std::vector<std::int32_t> zw = integer_zero_points(context, zw_in);
    const Tensor& out = context.output(0);
    if (!qlinear_) {
      run_integer_conv(context, g, 0, w_in, zx, zw, out.mutable_data<std::int32_t>().data(), config());
      return;
    }
    const std::int64_t total = out.element_count();
    Tensor acc = context.scratch(DType::I32, Shape{total});
    std::int32_t* c = acc.mutable_data<std::int32_t>().data();
    run_integer_conv(context, g, 0, w_in, zx, zw, c, config());
    const float sx = quant::floats_of(context.input(1))[0];
    const std::vector<float> sw = quant::floats_of(context.input(4));
    const float sy = quant::floats_of(context.input(6))[0];
    const std::int64_t zy = quant::integers_of(context.input(7))[0];
    const quant::PerIndex bias = context.has_input(8) ? quant::per_index_of(context.input(8)) : quant::PerIndex{};
    const quant::Range range = quant::range_of(out.dtype());
    const std::int64_t plane = g.axes[0].out * g.axes[1].out * g.axes[2].out;
    std::vector<std::int64_t> y(static_cast<std::size_t>(total));
    for (std::int64_t idx = 0; idx < total; ++idx) {
      const std::int64_t oc = plane == 0 ? 0 : (idx / plane) % g.m;
      const float mult = quant::requant_multiplier(sx, sw[sw.size() == 1 ? 0 : static_cast<std::size_t>(oc)], sy);
      const std::int32_t with_bias = quant::wrap_to_int32(static_cast<std::int64_t>(c[idx]) + bias.at(oc));
      y[static_cast<std::size_t>(idx)] = quant::requantize(with_bias, mult, zy, range);
    }
    quant::store_integers(out, y);
  }

 private:
  conv_geometry::WindowAttributes window_;
  std::int64_t group_;
  bool qlinear_;
};

}  // namespace

std::unique_ptr<OpKernel> make_conv_integer_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<IntegerConvOptimized>(node, config, false);
}

std::unique_ptr<OpKernel> make_qlinear_conv_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<IntegerConvOptimized>(node, config, true);
}

}  // namespace onemodel::opt
