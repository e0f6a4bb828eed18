// DynamicQuantizeLinear (opset 11; spec/ops/quantization.md section 6, from int8.md "Operators"):
// uint8 quantization of a float32 tensor with a scale and zero point computed from its range.
#include <algorithm>
#include <cmath>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/dynamic_quant_params.hpp"
#include "reference/ops/quant_helpers.hpp"

namespace onemodel {
namespace {

class DynamicQuantizeLinear final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    context.set_output(0, DType::U8, context.input_shape(0));
    if (context.output_wanted(1)) context.set_output(1, DType::F32, Shape{});
    if (context.output_wanted(2)) context.set_output(2, DType::U8, Shape{});
  }

  void run(RunContext& context) const override {
    const std::vector<float> x = context.input(0).to_vector<float>();
    // Section 6: lo = min(0, min x), hi = max(0, max x); NaN elements take no part in the range.
    float lo = 0.0f, hi = 0.0f;
    for (float v : x) {
      if (std::isnan(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    // Steps 2 and 3 (scale and zero point), shared with the optimized override.
    const quant::DynamicParams params = quant::dynamic_params(lo, hi);
    const float scale = params.scale;
    const std::int64_t zp = params.zero_point;
    const quant::Range range{0, 255};
    // y = clamp(round_half_even(x / scale) + zp, 0, 255), as QuantizeLinear (section 4).
    std::vector<std::int64_t> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float q = x[i] / scale;
      y[i] = quant::saturate(quant::round_half_even(static_cast<double>(q)) + static_cast<double>(zp), range);
    }
    quant::store_integers(context.output(0), y);
    if (context.output_wanted(1)) context.output(1).mutable_data<float>()[0] = canonical_nan_f32(scale);
    if (context.output_wanted(2)) context.output(2).mutable_data<std::uint8_t>()[0] = static_cast<std::uint8_t>(zp);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_dynamic_quantize_linear(const NodeInfo&) {
  return std::make_unique<DynamicQuantizeLinear>();
}

}  // namespace onemodel
