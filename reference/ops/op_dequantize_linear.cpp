// DequantizeLinear (opsets 10 to 27; spec/ops/quantization.md section 5, from int8.md "Operators"
// and the ONNX schemas): y = float(x - x_zero_point) * x_scale, per tensor, per axis (opset 13+)
// or blocked (opset 21+). Inputs uint8, int8, uint16, int16, int32, (opset 19+) the four
// quantized 8-bit floats (section 15), and from opset 21 uint4, int4, uint2, int2 and float4e2m1
// (section 5.1, quant_subbyte.hpp).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/quant_float8.hpp"
#include "reference/ops/quant_helpers.hpp"
#include "reference/ops/quant_subbyte.hpp"

namespace onemodel {
namespace {

class DequantizeLinear final : public OpKernel {
 public:
  explicit DequantizeLinear(const NodeInfo& node) : opset_(node.opset()) {
    axis_ = opset_ >= 13 ? node.get_int("axis", 1) : 1;
    block_size_ = opset_ >= 21 ? node.get_int("block_size", 0) : 0;
    if (block_size_ < 0) node.fail_invalid("block_size must not be negative");
    if (opset_ >= 23) {
      const std::int64_t code = node.get_int("output_dtype", 0);
      if (code != 0) {
        if (code != 1 && code != 10 && code != 16) {
          node.fail_invalid("output_dtype " + std::to_string(code) + " is not float, float16 or bfloat16");
        }
        output_dtype_ = static_cast<DType>(code);
      }
    }
  }

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::U8, DType::I8, DType::U16, DType::I16, DType::I32, DType::F8E4M3FN,
                             DType::F8E4M3FNUZ, DType::F8E5M2, DType::F8E5M2FNUZ, DType::U4, DType::I4, DType::U2,
                             DType::I2, DType::F4E2M1});
    if (quant::is_float8_quantized_type(context.input_type(0)) && opset_ < 19) {
      context.node().fail_invalid("an 8-bit float x needs opset 19 or later");
    }
    context.require_type(1, {DType::F32, DType::F16, DType::BF16});
    if (context.has_input(2)) {
      if (context.input_type(2) != context.input_type(0)) context.node().fail_invalid("x_zero_point's type differs from x's");
      quant::check_zero_point_shape(context.node(), context.input_shape(2), context.input_shape(1));
    }
    (void)quant::resolve_layout(context.node(), context.input_shape(0), context.input_shape(1), axis_, block_size_, opset_ >= 13);
    // Section 5: the output type is output_dtype when given, else the scale's type.
    context.set_output(0, output_dtype_.value_or(context.input_type(1)), context.input_shape(0));
  }

  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Tensor& s_t = context.input(1);
    const quant::ScaleLayout layout =
        quant::resolve_layout(context.node(), x_t.shape(), s_t.shape(), axis_, block_size_, opset_ >= 13);
    if (x_t.dtype() == DType::F4E2M1) return run_float4(context, layout);
    const std::vector<float> scale = quant::floats_of(s_t);
    if (quant::is_float8_quantized_type(x_t.dtype())) return run_float8(context, layout, scale);
    std::vector<std::int64_t> zp(scale.size(), 0);
    if (context.has_input(2)) zp = quant::integers_of(context.input(2));
    // The difference is exact in 64 bits, converted once to binary32 (nearest even; exact for
    // every 8- and 16-bit input), then one binary32 multiplication; the store rounds once more
    // for float16 and bfloat16 outputs.
    store_dequantized(context, layout, scale, quant::integers_of(x_t), zp);
  }

 private:
  // Section 15: the difference x - x_zero_point of two 8-bit float values is exact in binary64 and
  // rounded once to binary32 (the binary32 subtraction's result), then one binary32
  // multiplication by the scale, stored as for the integer inputs.
  static void run_float8(RunContext& context, const quant::ScaleLayout& layout, const std::vector<float>& scale) {
    std::vector<double> zp(scale.size(), 0.0);
    if (context.has_input(2)) zp = quant::float8_values(context.input(2));
    store_dequantized(context, layout, scale, quant::float8_values(context.input(0)), zp);
  }

  // y = float(x - zero point) * scale per element, the difference taken exactly in V (int64 or
  // binary64) and rounded once to binary32, then stored in the output's type.
  template <class V>
  static void store_dequantized(RunContext& context, const quant::ScaleLayout& layout, const std::vector<float>& scale,
                                const std::vector<V>& x, const std::vector<V>& zp) {
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
      const float d = static_cast<float>(x[i] - zp[k]);
      y[i] = d * scale[k];
    }
    quant::store_floats(context.output(0), y);
  }

  // Section 5.1: x and the zero point are FLOAT4E2M1 values; their difference is exact in binary32,
  // then one binary32 multiplication and the store's rounding, as for the integer types.
  static void run_float4(RunContext& context, const quant::ScaleLayout& layout) {
    const std::vector<float> x = quant::float4_values_of(context.input(0));
    const std::vector<float> scale = quant::floats_of(context.input(1));
    std::vector<float> zp(scale.size(), 0.0f);
    if (context.has_input(2)) zp = quant::float4_values_of(context.input(2));
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
      y[i] = (x[i] - zp[k]) * scale[k];
    }
    quant::store_floats(context.output(0), y);
  }

  std::int64_t opset_;
  std::int64_t axis_ = 1;
  std::int64_t block_size_ = 0;
  std::optional<DType> output_dtype_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dequantize_linear(const NodeInfo& node) { return std::make_unique<DequantizeLinear>(node); }

}  // namespace onemodel
