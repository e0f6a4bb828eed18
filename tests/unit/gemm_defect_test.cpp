// Issue 10, defect 2: Gemm with beta = 0 does not read C (spec/ops/products-conv.md section 5):
// ONNX's reference evaluator adds beta * C only when beta != 0, and ONNX Runtime 1.31.1 gives
// Y = alpha * A' * B' for an infinite or NaN C (checked with a one-node model, C as a graph input
// and as an initializer; its results are the literals below, which are also the hand product).
// Computing 0 * C gave NaN for an infinite or NaN C, and +0 where alpha * acc is -0.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "diff/op_harness.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using ir_builder::float_attr;
using ir_builder::float_bits;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

// A [2, 3] (second row zero), B [3, 2]: A * B = [[-4, 12], [0, 0]] by hand
// (1 + 4 - 9 = -4, -1 + 1 + 12 = 12).
const std::vector<float> kA = {1, 2, 3, 0, 0, 0};
const std::vector<float> kB = {1, -1, 2, 0.5f, -3, 4};
const std::vector<float> kC = {kInf, kNan, -kInf, 1.0f};

// alpha * (A * B), the signs included: ONNX Runtime gives -0 for alpha = -1 on the zero row.
std::vector<float> expected(float alpha) {
  return {alpha * -4.0f, alpha * 12.0f, alpha * 0.0f, alpha * 0.0f};
}

void expect_bits(const Tensor& y, const std::vector<float>& want, const std::string& where) {
  ASSERT_EQ(y.element_count(), static_cast<std::int64_t>(want.size())) << where;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(float_bits(y.data<float>()[i]), float_bits(want[i])) << where << " element " << i;
  }
}

diff::OpCase gemm_case(float alpha) {
  diff::OpCase c;
  c.op = "Gemm";
  c.opset = 13;
  c.attributes = {float_attr("alpha", alpha), float_attr("beta", 0.0f)};
  c.inputs = {f32(Shape{2, 3}, kA), f32(Shape{3, 2}, kB), f32(Shape{2, 2}, kC)};
  return c;
}

TEST(GemmDefect, BetaZeroDoesNotReadCInEitherEngineOrMode) {
  for (float alpha : {2.0f, -1.0f, 1.0f}) {
    const diff::OpCase c = gemm_case(alpha);
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      const std::string m = mode == ExecutionMode::Exact ? "exact" : "fast";
      expect_bits(diff::run_reference(c, mode).at(0), expected(alpha), "reference " + m);
      for (opt::Isa isa : opt::available_isas()) {
        for (int threads : {1, 2}) {
          expect_bits(diff::run_optimized(c, mode, isa, threads).at(0), expected(alpha),
                      "optimized " + m + " " + std::string(opt::isa_name(isa)) + " threads " + std::to_string(threads));
        }
      }
    }
  }
}

// A whole graph with B and C initializers, so linear-pack-fuse folds the Gemm (alpha = 1) and
// its C into a LinearOp, then a Relu: no pass may form beta * C either.
TEST(GemmDefect, BetaZeroInTheFusedLinearOpAndEveryEngine) {
  graph_builder::GraphBuilder b(13);
  b.input("a", DType::F32, Shape{2, 3})
      .initializer("b", f32(Shape{3, 2}, kB))
      .initializer("c", f32(Shape{2}, {kInf, kNan}))
      .node("Gemm", {"a", "b", "c"}, {"y"}, {float_attr("beta", 0.0f)})
      .node("Neg", {"y"}, {"out"})
      .output("out", DType::F32);
  const IrModel model = b.build();
  const std::vector<float> want = {4.0f, -12.0f, -0.0f, -0.0f};  // -(A * B)
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (OptimizationLevel level : {OptimizationLevel::None, OptimizationLevel::All}) {
      for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
        SessionOptions options;
        options.engine = engine;
        options.optimization_level = level;
        options.mode = mode;
        options.intra_op_threads = 1;
        const Session session = Session::create(model, options);
        expect_bits(session.run({{"a", f32(Shape{2, 3}, kA)}}).at(0), want,
                    std::string(engine == EngineKind::Reference ? "reference" : "optimized") +
                        (level == OptimizationLevel::All ? " all" : " none") +
                        (mode == ExecutionMode::Exact ? " exact" : " fast"));
      }
    }
  }
}

// beta != 0 still reads C: 0.5 * [2, 4] added after alpha * acc.
TEST(GemmDefect, NonZeroBetaStillAddsC) {
  diff::OpCase c = gemm_case(1.0f);
  c.attributes = {float_attr("beta", 0.5f)};
  c.inputs[2] = f32(Shape{2}, {2.0f, 4.0f});
  const std::vector<float> want = {-3.0f, 14.0f, 1.0f, 2.0f};
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    expect_bits(diff::run_reference(c, mode).at(0), want, "reference");
    for (opt::Isa isa : opt::available_isas()) expect_bits(diff::run_optimized(c, mode, isa, 2).at(0), want, "optimized");
  }
}

}  // namespace
}  // namespace onemodel
