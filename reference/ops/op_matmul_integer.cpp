// MatMulInteger (opset 10; spec/ops/quantization.md section 8, from int8.md "Operators" and the
// ONNX schema): numpy.matmul of (A - a_zero_point) and (B - b_zero_point) for uint8 and int8
// operands in any mix, int32 result (section 7: exact, stored modulo 2^32).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel {
namespace {

class MatMulInteger final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::U8, DType::I8});
    context.require_type(1, {DType::U8, DType::I8});
    const auto s = products::matmul_shape(context.node(), context.input_shape(0), context.input_shape(1));
    // Section 8: a_zero_point is one value or one per row of A (M); b_zero_point one value or one
    // per column of B (N). Each has its operand's type.
    if (context.has_input(2)) {
      if (context.input_type(2) != context.input_type(0)) context.node().fail_invalid("a_zero_point's type differs from A's");
      quant::check_per_index(context.node(), context.input_shape(2), s.m, "a_zero_point");
    }
    if (context.has_input(3)) {
      if (context.input_type(3) != context.input_type(1)) context.node().fail_invalid("b_zero_point's type differs from B's");
      quant::check_per_index(context.node(), context.input_shape(3), s.n, "b_zero_point");
    }
    context.set_output(0, DType::I32, s.out);
  }
  void run(RunContext& context) const override {
    const auto s = products::matmul_shape(context.node(), context.input(0).shape(), context.input(1).shape());
    const quant::PerIndex za = context.has_input(2) ? quant::per_index_of(context.input(2)) : quant::PerIndex{};
    const quant::PerIndex zb = context.has_input(3) ? quant::per_index_of(context.input(3)) : quant::PerIndex{};
    const auto c = quant::integer_matmul(s, quant::integers_of(context.input(0)), quant::integers_of(context.input(1)), za, zb);
    auto y = context.output(0).mutable_data<std::int32_t>();
    std::copy(c.begin(), c.end(), y.begin());
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul_integer(const NodeInfo&) { return std::make_unique<MatMulInteger>(); }

}  // namespace onemodel
