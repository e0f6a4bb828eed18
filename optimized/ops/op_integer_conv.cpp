// ConvInteger and QLinearConv on the integer convolution of integer_conv_run.hpp (spec-source
// int8.md "Convolution"): the int32 convolution (the product kernel with the windows packed
// straight into B, or the direct depthwise kernel), then for QLinearConv the requantization
// epilogue (integer_requantize.hpp: the bias added modulo 2^32, the multiplier (sx * sw) / sy
// worked out once per output channel with quant::requant_multiplier, round half to even, zero
// point, clamp; spec/ops/quantization.md sections 10 and 12). Geometry, types and refusals are the
// reference's (its infer() and quant::integer_conv_geometry), so every output is the reference's
// bits on every path and thread count. Constant weights (and their zero point) are prepared once
// per plan (prepare()); runtime weights per call. A general (not depthwise) reduction longer than
// the kernel's bound runs the reference kernel.
#include <memory>
#include <optional>
#include <vector>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/integer_conv_run.hpp"
#include "optimized/ops/integer_product_plan.hpp"
#include "optimized/ops/integer_requantize.hpp"

namespace onemodel::opt {
namespace {

bool conv_served(const quant::IntegerConvGeometry& g, const IntegerConvWeights& weights) {
  if (weights.depthwise) return true;  // the direct kernel sums modulo 2^32 whatever the length
  const std::int64_t taps = g.axes[0].kernel * g.axes[1].kernel * g.axes[2].kernel;
  return static_cast<std::size_t>(g.c / g.group * taps) <= int8::kMaxK;
}

std::vector<std::int32_t> conv_int32_values(const std::vector<std::int64_t>& values) {
  return std::vector<std::int32_t>(values.begin(), values.end());
}

// The scalars and per-channel values a call reads besides x and the weights: x's zero point and,
// for QLinearConv, the requantization (the multiplier (sx * sw) / sy per output channel, the bias,
// y's zero point). Worked out once per plan when they are constants (so a warm call allocates
// nothing, graph-runtime.md section 4), else per call.
struct ConvScalars {
  std::int32_t zx = 0;
  std::vector<float> mult;           // QLinearConv: one per output channel
  std::vector<std::int32_t> bias;    // QLinearConv: empty, one, or one per output channel
  std::int32_t zy = 0;               // QLinearConv
};

// `has(i)` tells whether input i is given, `value(i)` is its tensor or nullptr when not known
// (then false and `out` is not complete).
template <class Has, class ValueOf>
bool conv_scalars(const quant::IntegerConvGeometry& g, bool qlinear, Has&& has, ValueOf&& value, ConvScalars& out) {
  if (has(2)) {
    const Tensor* z = value(2);
    if (z == nullptr) return false;
    out.zx = static_cast<std::int32_t>(quant::integers_of(*z)[0]);
  }
  if (!qlinear) return true;
  const Tensor* sx_t = value(1);
  const Tensor* sw_t = value(4);
  const Tensor* sy_t = value(6);
  const Tensor* zy_t = value(7);
  const Tensor* b_t = has(8) ? value(8) : nullptr;
  if (sx_t == nullptr || sw_t == nullptr || sy_t == nullptr || zy_t == nullptr || (has(8) && b_t == nullptr)) {
    return false;
  }
  const float sx = quant::floats_of(*sx_t)[0];
  const std::vector<float> sw = quant::floats_of(*sw_t);
  const float sy = quant::floats_of(*sy_t)[0];
  out.zy = static_cast<std::int32_t>(quant::integers_of(*zy_t)[0]);
  // The multiplier once per output channel: requant_multiplier on the very values the
  // reference's per-element call uses, so the same float32 bits.
  out.mult.resize(static_cast<std::size_t>(g.m));
  for (std::int64_t oc = 0; oc < g.m; ++oc) {
    out.mult[static_cast<std::size_t>(oc)] =
        quant::requant_multiplier(sx, sw[sw.size() == 1 ? 0 : static_cast<std::size_t>(oc)], sy);
  }
  if (b_t != nullptr) out.bias = conv_int32_values(quant::integers_of(*b_t));
  return true;
}

// What prepare() makes when the weights and their zero point are constants of the model.
struct IntegerConvPlan {
  Shape x_shape, w_shape;
  quant::IntegerConvGeometry geometry;
  IntegerConvWeights weights;
  bool scalars_known = false;  // `scalars` holds the constants' values
  ConvScalars scalars;
};

class IntegerConvOptimized final : public OptimizedKernel {
 public:
  IntegerConvOptimized(const NodeInfo& node, const OptimizedConfig& config, bool qlinear)
      : OptimizedKernel(node, config),
        window_(conv_geometry::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        qlinear_(qlinear) {}

  // Inputs: ConvInteger x, w, x_zero_point, w_zero_point; QLinearConv x, x_scale, x_zero_point,
  // w, w_scale, w_zero_point, y_scale, y_zero_point, bias.
  std::size_t w_input() const { return qlinear_ ? 3 : 1; }
  std::size_t zw_input() const { return qlinear_ ? 5 : 3; }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    const Tensor* w = context.known_value(w_input());
    if (w == nullptr) return nullptr;
    std::vector<std::int32_t> zw{0};
    if (context.has_input(zw_input())) {
      const Tensor* z = context.known_value(zw_input());
      if (z == nullptr) return nullptr;
      zw = conv_int32_values(quant::integers_of(*z));
    }
    auto plan = std::make_shared<IntegerConvPlan>();
    plan->x_shape = context.input_shape(0);
    plan->w_shape = w->shape();
    plan->geometry = quant::integer_conv_geometry(context.node(), window_, group_, plan->x_shape, plan->w_shape);
    plan->weights = prepare_integer_conv_weights(plan->geometry, *w, zw);
    plan->scalars_known = conv_scalars(
        plan->geometry, qlinear_, [&](std::size_t i) { return context.has_input(i); },
        [&](std::size_t i) { return context.known_value(i); }, plan->scalars);
    return plan;
  }

  void run(RunContext& context) const override {
    const auto* plan = static_cast<const IntegerConvPlan*>(context.state());
    const Tensor& x = context.input(0);
    const Tensor& w = context.input(w_input());
    std::optional<IntegerConvPlan> local;
    if (plan == nullptr || plan->x_shape != x.shape() || plan->w_shape != w.shape()) {
      // Runtime weights (or shapes the plan did not see): prepared for this call.
      local.emplace();
      local->geometry = quant::integer_conv_geometry(context.node(), window_, group_, x.shape(), w.shape());
      const ZeroPoints zw = integer_zero_points(context, zw_input());
      local->weights = prepare_integer_conv_weights(local->geometry, w, std::vector<std::int32_t>(zw.begin(), zw.end()));
      plan = &*local;
    }
    const quant::IntegerConvGeometry& g = plan->geometry;
    if (!conv_served(g, plan->weights)) {
      run_reference(context);
      return;
    }
    // The plan's scalars when they were constants, else this call's inputs' values.
    ConvScalars local_scalars;
    const ConvScalars* scalars = plan->scalars_known ? &plan->scalars : &local_scalars;
    if (!plan->scalars_known && !qlinear_) {
      // ConvInteger after DynamicQuantizeLinear (the dynamically quantized speech encoders): x's
      // zero point is this call's, one value (checked by infer), read in place so that a warm
      // call allocates nothing (graph-runtime.md section 4).
      local_scalars.zx = integer_zero_points(context, 2)[0];
    } else if (!plan->scalars_known) {
      conv_scalars(
          g, qlinear_, [&](std::size_t i) { return context.has_input(i); },
          [&](std::size_t i) { return &context.input(i); }, local_scalars);
    }
    const std::int32_t zx = scalars->zx;
    const Tensor& out = context.output(0);
    if (!qlinear_) {
      run_integer_conv(g, x, zx, plan->weights, out.mutable_data<std::int32_t>().data(), config());
      return;
    }
    const std::int64_t total = out.element_count();
    Tensor acc = context.scratch(DType::I32, Shape{total});
    std::int32_t* c = acc.mutable_data<std::int32_t>().data();
    // QLinearConv's epilogue, run by each chunk on the part it wrote (integer_conv_run.hpp).
    const std::vector<float>& mult = scalars->mult;
    const std::vector<std::int32_t>& bias = scalars->bias;
    const std::int32_t zy = scalars->zy;
    const quant::Range range = quant::range_of(out.dtype());
    const std::int64_t plane = g.axes[0].out * g.axes[1].out * g.axes[2].out;
    auto* y = reinterpret_cast<std::uint8_t*>(out.dtype() == DType::U8 ? static_cast<void*>(out.mutable_data<std::uint8_t>().data())
                                                                        : static_cast<void*>(out.mutable_data<std::int8_t>().data()));
    const Isa isa = config().isa;
    const auto requantize = [&](std::int64_t n, std::int64_t oc0, std::int64_t channels, std::int64_t col0,
                                std::int64_t cols) {
      for (std::int64_t oc = oc0; oc < oc0 + channels; ++oc) {
        const std::int64_t at = (n * g.m + oc) * plane + col0;
        const std::int32_t* b = bias.empty() ? nullptr : bias.data() + (bias.size() == 1 ? 0 : oc);
        requantize_bytes(c + at, static_cast<std::size_t>(cols), &mult[static_cast<std::size_t>(oc)], 0, b, 0, zy, range,
                         y + at, isa);
      }
    };
    const IntegerConvEpilogue epilogue(requantize);
    run_integer_conv(g, x, zx, plan->weights, c, config(), &epilogue);
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
