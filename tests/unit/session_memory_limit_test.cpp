// The session memory limit (spec/session.md section 7, issue 11 defect 6): one count per run, in
// both engines, over the plan's intermediate values, values shaped while running and the outputs
// a run allocates; what would pass the limit is refused with ResourceExhausted before it is
// allocated, and a run under the limit gives the bits of an unlimited one.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "core/session/run_control.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// x float[1024] -> Expand to [rows, 1024] (rows * 4 KiB) -> `fan` Identity
// outputs y0..: the shape of the defect's report (one large value returned through 16 Identity
// outputs), small enough for a test.
IrModel fan_out_model(std::int64_t rows, int fan) {
  IrModel m = expanded_input_model(1024, {rows, 1024}, "e");
  for (int i = 0; i < fan; ++i) {
    const std::string y = "y" + std::to_string(i);
    IrNode identity = node("Identity", {"e"}, {y});
    identity.name = "identity_" + std::to_string(i);
    m.graph.nodes.push_back(identity);
    m.graph.outputs.push_back(tensor_value_info(y, 1, {fixed_dim(rows), fixed_dim(1024)}));
  }
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

// shape int64[2] -> ConstantOfShape -> y: the output's size is known only from the input's values.
IrModel constant_of_shape_model() {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", 13}};
  m.graph.inputs = {tensor_value_info("shape", 7, {fixed_dim(2)})};
  m.graph.outputs = {unshaped_tensor_value_info("y", 1)};
  m.graph.nodes = {node("ConstantOfShape", {"shape"}, {"y"})};
  m.graph.nodes[0].name = "fill";
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

Session make(const IrModel& model, EngineKind engine, std::int64_t limit) {
  SessionOptions options;
  options.engine = engine;
  options.memory_limit_bytes = limit;
  options.intra_op_threads = 1;
  return Session::create(model, options);
}

std::vector<std::pair<std::string, Tensor>> ramp_feed() {
  std::vector<float> x(1024);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.25f - 17.0f;
  return {{"x", Tensor::from_values<float>(DType::F32, Shape{1024}, x)}};
}

class MemoryLimit : public ::testing::TestWithParam<EngineKind> {};

TEST_P(MemoryLimit, SixteenOutputsOfOneValueOverTheLimitAreRefusedBeforeAllocating) {
  // 1 MiB value, 16 outputs: 16 MiB of outputs (and 1 MiB of slab or 17 MiB of reference
  // values) against a 4 MiB limit. Before the limit, the optimized engine's plan budget saw only
  // the 1 MiB slab and the reference engine had none.
  const Session session = make(fan_out_model(256, 16), GetParam(), 4 * kMiB);
  try {
    session.run(ramp_feed());
    FAIL() << "the run passed the memory limit";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::ResourceExhausted) << e.what();
  }
}

TEST_P(MemoryLimit, ARunUnderTheLimitGivesTheBitsOfAnUnlimitedRun) {
  const IrModel model = fan_out_model(8, 4);  // 32 KiB value, 4 outputs
  const std::vector<Tensor> limited = make(model, GetParam(), 1 * kMiB).run(ramp_feed());
  SessionOptions unlimited;
  unlimited.engine = GetParam();
  unlimited.memory_limit_bytes = INT64_MAX;
  const std::vector<Tensor> expected = Session::create(model, unlimited).run(ramp_feed());
  ASSERT_EQ(limited.size(), expected.size());
  for (std::size_t i = 0; i < limited.size(); ++i) {
    ASSERT_EQ(limited[i].shape(), expected[i].shape());
    const std::vector<float> a = limited[i].to_vector<float>();
    const std::vector<float> b = expected[i].to_vector<float>();
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "output " << i;
  }
  // The values are the input repeated (ONNX Expand, Identity).
  EXPECT_EQ(limited[3].to_vector<float>()[1024 * 7 + 5], 5 * 0.25f - 17.0f);
}

TEST_P(MemoryLimit, ADataDependentValueOverTheLimitIsRefusedNamingItsNode) {
  // ConstantOfShape [1024, 1024] float: 4 MiB decided by the input's values, against 1 MiB.
  const Session session = make(constant_of_shape_model(), GetParam(), 1 * kMiB);
  const Tensor shape = Tensor::from_values<std::int64_t>(DType::I64, Shape{2}, {1024, 1024});
  try {
    session.run({{"shape", shape}});
    FAIL() << "the run passed the memory limit";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::ResourceExhausted) << e.what();
    EXPECT_EQ(e.node_name(), "fill");
  }
  // A small one runs in the same session: the refused run left nothing counted behind.
  const Tensor small = Tensor::from_values<std::int64_t>(DType::I64, Shape{2}, {16, 16});
  const std::vector<Tensor> out = session.run({{"shape", small}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{16, 16}));
  EXPECT_EQ(out[0].to_vector<float>()[255], 0.0f);
}

TEST_P(MemoryLimit, VisitingOutputsAllocatesNoCopyOfThem) {
  // Session::run_visit hands each output where it lies: the 16 outputs of a 1 MiB value fit in
  // a 4 MiB limit that copying them does not.
  const Session session = make(fan_out_model(256, 16), GetParam(), GetParam() == EngineKind::Reference ? 18 * kMiB
                                                                                                         : 4 * kMiB);
  std::vector<std::string> names;
  for (const TensorInfo& info : session.outputs()) names.push_back(info.name);
  const auto feed = ramp_feed();
  const std::vector<std::string> input_names{"x"};
  const std::vector<Tensor> inputs{feed[0].second};
  std::size_t seen = 0;
  session.run_visit(input_names, inputs, names, [&](std::size_t index, const Tensor& result) {
    EXPECT_EQ(index, seen);
    EXPECT_EQ(result.shape(), (Shape{256, 1024}));
    EXPECT_EQ(result.to_vector<float>()[1024 * 255 + 1023], 1023 * 0.25f - 17.0f);
    ++seen;
  });
  EXPECT_EQ(seen, 16u);
  std::vector<Tensor> copies(names.size());
  try {
    session.run(input_names, inputs, names, copies);
    FAIL() << "copying 16 MiB of outputs passed the limit";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::ResourceExhausted) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(BothEngines, MemoryLimit, ::testing::Values(EngineKind::Optimized, EngineKind::Reference),
                         [](const auto& info) {
                           return std::string(info.param == EngineKind::Optimized ? "Optimized" : "Reference");
                         });

TEST(MemoryLimit, ALimitBelowOneByteIsRefused) {
  SessionOptions options;
  options.memory_limit_bytes = 0;
  EXPECT_EQ(session_error_kind_of([&] { Session::create(fan_out_model(1, 1), options); }),
            SessionErrorKind::Unsupported);
}

TEST(RunControl, CountsUpToTheLimitAndRefusesTheByteAfterCountingNothing) {
  RunControl control(100, RunOptions{});
  control.charge(60, "a");
  control.charge(40, "b");
  EXPECT_EQ(control.live_bytes(), 100);
  EXPECT_EQ(session_error_kind_of([&] { control.charge(1, "c"); }), SessionErrorKind::ResourceExhausted);
  EXPECT_EQ(control.live_bytes(), 100);
  RunControl huge(INT64_MAX, RunOptions{});
  huge.charge(INT64_MAX - 1, "d");
  // No overflow in the comparison: INT64_MAX - 1 + 2 would wrap.
  EXPECT_EQ(session_error_kind_of([&] { huge.charge(2, "e"); }), SessionErrorKind::ResourceExhausted);
}

}  // namespace
}  // namespace onemodel
