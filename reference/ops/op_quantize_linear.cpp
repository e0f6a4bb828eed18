// QuantizeLinear (opsets 10 to 27; spec/ops/quantization.md section 4, from int8.md "Operators"
// and the ONNX schemas): y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor,
// per axis (opset 13+) or blocked (opset 21+). Outputs uint8, int8, uint16, int16, (opset 19+)
// the four quantized 8-bit floats, rounded by Cast's rules with `saturate` (section 15), and from
// opset 21 uint4, int4, uint2, int2 and float4e2m1 (section 5.1, quant_subbyte.hpp).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/quant_float8.hpp"
#include "reference/ops/quant_helpers.hpp"
#include "reference/ops/quant_subbyte.hpp"

namespace onemodel {
namespace {

class QuantizeLinear final : public OpKernel {
 public:
  explicit QuantizeLinear(const NodeInfo& node) : opset_(node.opset()) {
    axis_ = opset_ >= 13 ? node.get_int("axis", 1) : 1;
    block_size_ = opset_ >= 21 ? node.get_int("block_size", 0) : 0;
    if (block_size_ < 0) node.fail_invalid("block_size must not be negative");
    // saturate (opset 19+) applies to 8-bit float outputs only (section 15).
    if (opset_ >= 19) {
      const std::int64_t saturate = node.get_int("saturate", 1);
      if (saturate != 0 && saturate != 1) node.fail_invalid("saturate must be 0 or 1");
      saturate_ = saturate == 1;
    }
    if (opset_ >= 21) {
      const std::int64_t code = node.get_int("output_dtype", 0);
      if (code != 0) output_dtype_ = checked_output_type(node, code);
    }
    if (opset_ >= 23) {
      const std::int64_t p = node.get_int("precision", 0);
      if (p != 0) {
        // Section 4: the division is done in the precision type (float, float16, bfloat16).
        if (p != 1 && p != 10 && p != 16) node.fail_unsupported("precision " + std::to_string(p) + " (float, float16 and bfloat16 are handled)");
        precision_ = static_cast<DType>(p);
        has_precision_ = true;
      }
    }
  }

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F16, DType::BF16, DType::I32});
    context.require_type(1, {DType::F32, DType::F16, DType::BF16});
    DType out = output_dtype_.value_or(DType::U8);
    if (context.has_input(2)) {
      const DType zp = context.input_type(2);
      if (quant::is_float8_quantized_type(zp)) {
        if (opset_ < 19) context.node().fail_invalid("an 8-bit float y_zero_point needs opset 19 or later");
      } else if (!quant::is_quantized_type(zp) && zp != DType::F4E2M1) {
        context.node().fail_unsupported("y_zero_point type " + std::string(dtype_name(zp)));
      }
      if (output_dtype_ && *output_dtype_ != zp) context.node().fail_invalid("output_dtype differs from y_zero_point's type");
      out = zp;
      quant::check_zero_point_shape(context.node(), context.input_shape(2), context.input_shape(1));
    }
    (void)quant::resolve_layout(context.node(), context.input_shape(0), context.input_shape(1), axis_, block_size_, opset_ >= 13);
    context.set_output(0, out, context.input_shape(0));
  }

  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Tensor& s_t = context.input(1);
    const quant::ScaleLayout layout =
        quant::resolve_layout(context.node(), x_t.shape(), s_t.shape(), axis_, block_size_, opset_ >= 13);
    const Tensor& y_t = context.output(0);
    if (y_t.dtype() == DType::F4E2M1) return run_float4(context, layout);
    const quant::Range range = quant::range_of(y_t.dtype());
    // Section 4: the division's type is `precision`, else y_scale's type.
    const DType p = has_precision_ ? precision_ : s_t.dtype();
    const std::vector<float> x = x_as_floats(x_t);
    std::vector<float> scale = quant::floats_of(s_t);
    for (float& s : scale) s = quant::round_to(p, s);
    if (quant::is_float8_quantized_type(y_t.dtype())) return run_float8(context, layout, x, scale, p);
    std::vector<std::int64_t> zp(scale.size(), 0);
    if (context.has_input(2)) zp = quant::integers_of(context.input(2));
    std::vector<std::int64_t> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
      // One binary32 division of x (rounded to the precision type) by the scale, rounded once to
      // the precision type: correctly rounded for float16 and bfloat16 because binary32 carries
      // more than twice their significand bits plus two.
      const float q = quant::round_to(p, quant::round_to(p, x[i]) / scale[k]);
      const double r = quant::round_half_even(static_cast<double>(q));
      // The zero point is added to the rounded integer before saturating (section 4).
      y[i] = quant::saturate(r + static_cast<double>(zp[k]), range);
    }
    quant::store_integers(y_t, y);
  }

 private:
  // Section 15: q = x / y_scale as for the integer types (rounded to the precision type), plus the
  // zero point in binary64 (exact whenever the sum can matter: see the section), then one rounding
  // to the 8-bit float type with `saturate`. No rounding to an integer.
  void run_float8(RunContext& context, const quant::ScaleLayout& layout, const std::vector<float>& x,
                  const std::vector<float>& scale, DType p) const {
    std::vector<double> zp(scale.size(), 0.0);
    if (context.has_input(2)) zp = quant::float8_values(context.input(2));
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
      const float q = quant::round_to(p, quant::round_to(p, x[i]) / scale[k]);
      y[i] = static_cast<double>(q) + zp[k];
    }
    quant::store_float8(context.output(0), y, saturate_);
  }

  // Section 5.1: y = FLOAT4E2M1(x / y_scale + y_zero_point), the quotient formed as above and the
  // sum rounded once by Cast's FLOAT4E2M1 rule (no integer rounding in between).
  void run_float4(RunContext& context, const quant::ScaleLayout& layout) const {
    const Tensor& s_t = context.input(1);
    const DType p = has_precision_ ? precision_ : s_t.dtype();
    const std::vector<float> x = x_as_floats(context.input(0));
    std::vector<float> scale = quant::floats_of(s_t);
    for (float& s : scale) s = quant::round_to(p, s);
    std::vector<float> zp(scale.size(), 0.0f);
    if (context.has_input(2)) zp = quant::float4_values_of(context.input(2));
    auto y = context.output(0).mutable_data<std::uint8_t>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
      const float q = quant::round_to(p, quant::round_to(p, x[i]) / scale[k]);
      y[i] = quant::quantize_float4(q, zp[k]);
    }
  }

  static DType checked_output_type(const NodeInfo& node, std::int64_t code) {
    if (code == 2 || code == 3 || code == 4 || code == 5) return static_cast<DType>(code);
    if (code >= 17 && code <= 20) return static_cast<DType>(code);  // the quantized 8-bit floats
    if (code == 24) node.fail_invalid("output_dtype FLOAT8E8M0 is a scale type, not a quantized type");
    if (quant::is_subbyte_quantized_code(code)) return static_cast<DType>(code);
    if (quant::is_unstored_quantized_code(code)) {
      node.fail_unsupported("output_dtype " + std::string(onnx_type_name(static_cast<std::int32_t>(code))) +
                            " is not stored by the library");
    }
    node.fail_invalid("output_dtype " + std::to_string(code) + " is not a quantized type");
  }
  // Section 4: float16 and bfloat16 widen exactly; int32 converts to binary32, nearest even.
  static std::vector<float> x_as_floats(const Tensor& t) {
    if (t.dtype() != DType::I32) return quant::floats_of(t);
    std::vector<float> out;
    for (std::int32_t v : t.to_vector<std::int32_t>()) out.push_back(static_cast<float>(v));
    return out;
  }

  std::int64_t opset_;
  std::int64_t axis_ = 1;
  std::int64_t block_size_ = 0;
  std::optional<DType> output_dtype_;
  DType precision_ = DType::F32;
  bool has_precision_ = false;
  bool saturate_ = true;
};

}  // namespace

std::unique_ptr<OpKernel> make_quantize_linear(const NodeInfo& node) { return std::make_unique<QuantizeLinear>(node); }

}  // namespace onemodel
