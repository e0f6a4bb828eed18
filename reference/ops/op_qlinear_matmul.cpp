// QLinearMatMul (opsets 10 and 21; spec/ops/quantization.md section 11, from int8.md "Operators"
// and the ONNX schemas): the integer product of (a - a_zero_point) and (b - b_zero_point)
// (section 7), requantized to y_zero_point's type (section 10). Scales float32, float16 or
// bfloat16 (opset 21), widened exactly to binary32; 8-bit integer operands in any mix; the float8
// types are not stored by the library and are refused as Unsupported. An optional ninth input,
// an int32 bias per column, is added to the accumulator first (int8.md; not in ONNX).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel {
namespace {

class QLinearMatMul final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    for (std::size_t i : {0u, 2u, 3u, 5u, 7u}) {
      if (!context.has_input(i)) node.fail_invalid("input " + std::to_string(i) + " is required");
      context.require_type(i, {DType::U8, DType::I8});
    }
    for (std::size_t i : {1u, 4u, 6u}) context.require_type(i, {DType::F32, DType::F16, DType::BF16});
    if (context.input_type(2) != context.input_type(0)) node.fail_invalid("a_zero_point's type differs from a's");
    if (context.input_type(5) != context.input_type(3)) node.fail_invalid("b_zero_point's type differs from b's");
    const auto s = products::matmul_shape(node, context.input_shape(0), context.input_shape(3));
    // Section 11: a's scale and zero point are one value or one per row (M); b's one value or one
    // per column (N); y's one value.
    quant::check_per_index(node, context.input_shape(1), s.m, "a_scale");
    quant::check_per_index(node, context.input_shape(2), s.m, "a_zero_point");
    quant::check_per_index(node, context.input_shape(4), s.n, "b_scale");
    quant::check_per_index(node, context.input_shape(5), s.n, "b_zero_point");
    quant::check_per_index(node, context.input_shape(6), 1, "y_scale");
    quant::check_per_index(node, context.input_shape(7), 1, "y_zero_point");
    if (context.has_input(8)) {
      context.require_type(8, {DType::I32});
      quant::check_per_index(node, context.input_shape(8), s.n, "bias");
    }
    context.set_output(0, context.input_type(7), s.out);
  }
  void run(RunContext& context) const override {
    const auto s = products::matmul_shape(context.node(), context.input(0).shape(), context.input(3).shape());
    const quant::PerIndex za = quant::per_index_of(context.input(2));
    const quant::PerIndex zb = quant::per_index_of(context.input(5));
    const std::vector<float> sa = quant::floats_of(context.input(1));
    const std::vector<float> sb = quant::floats_of(context.input(4));
    const float sy = quant::floats_of(context.input(6))[0];
    const std::int64_t zy = quant::integers_of(context.input(7))[0];
    const quant::PerIndex bias = context.has_input(8) ? quant::per_index_of(context.input(8)) : quant::PerIndex{};
    const auto c = quant::integer_matmul(s, quant::integers_of(context.input(0)), quant::integers_of(context.input(3)), za, zb);
    const quant::Range range = quant::range_of(context.output(0).dtype());
    std::vector<std::int64_t> y(c.size());
    for (std::size_t idx = 0; idx < c.size(); ++idx) {
      const std::int64_t j = static_cast<std::int64_t>(idx) % s.n;
      const std::int64_t i = (static_cast<std::int64_t>(idx) / s.n) % s.m;
      const float mult = quant::requant_multiplier(sa[sa.size() == 1 ? 0 : static_cast<std::size_t>(i)],
                                                   sb[sb.size() == 1 ? 0 : static_cast<std::size_t>(j)], sy);
      // The bias joins the accumulator in int32 arithmetic (modulo 2^32, section 7).
      const std::int32_t acc = quant::wrap_to_int32(static_cast<std::int64_t>(c[idx]) + bias.at(j));
      y[idx] = quant::requantize(acc, mult, zy, range);
    }
    quant::store_integers(context.output(0), y);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_qlinear_matmul(const NodeInfo&) { return std::make_unique<QLinearMatMul>(); }

}  // namespace onemodel
