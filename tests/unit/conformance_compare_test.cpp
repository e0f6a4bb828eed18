// The conformance method (spec/conformance.md, from conformance.md's method section): the
// tolerance |got - want| <= 1e-7 + 1e-3 |want| with NaN and infinity rules, exact integer and
// boolean equality, type and shape equality, the status of each error kind, and whole cases
// built here (model, input and output files) run through run_case.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/conformance/case_runner.hpp"
#include "core/conformance/compare.hpp"
#include "onemodel/half.hpp"
#include "tests/support/case_folder_test.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel::conformance {
namespace {

namespace fs = std::filesystem;
namespace onnxb = testing::onnxb;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ConformanceTolerance, AbsoluteAndRelativeBounds) {
  // Bound for want = 0: 1e-7 exactly.
  EXPECT_TRUE(float_element_matches(1e-7, 0.0));
  EXPECT_TRUE(float_element_matches(-1e-7, 0.0));
  EXPECT_FALSE(float_element_matches(1.5e-7, 0.0));
  // Bound for want = 1000: 1e-7 + 1 = 1.0000001.
  EXPECT_TRUE(float_element_matches(1001.0, 1000.0));
  EXPECT_TRUE(float_element_matches(998.99999995, 1000.0));
  EXPECT_FALSE(float_element_matches(1001.0000002, 1000.0));
  // The relative part uses |want|, not |got|: got 2, want 1 differs by 1 > 1e-3.
  EXPECT_FALSE(float_element_matches(2.0, 1.0));
  EXPECT_TRUE(float_element_matches(-1.0005, -1.0));
  EXPECT_FALSE(float_element_matches(1.0, -1.0));
}

TEST(ConformanceTolerance, NaNAndInfinities) {
  EXPECT_TRUE(float_element_matches(kNaN, kNaN));
  EXPECT_TRUE(float_element_matches(-kNaN, kNaN));  // any NaN matches any NaN
  EXPECT_FALSE(float_element_matches(kNaN, 1.0));
  EXPECT_FALSE(float_element_matches(1.0, kNaN));
  EXPECT_TRUE(float_element_matches(kInf, kInf));
  EXPECT_TRUE(float_element_matches(-kInf, -kInf));
  EXPECT_FALSE(float_element_matches(-kInf, kInf));
  // A finite value never matches an infinity, however large (1e-3 * inf would accept it).
  EXPECT_FALSE(float_element_matches(1e308, kInf));
  EXPECT_FALSE(float_element_matches(kInf, 1e308));
  EXPECT_FALSE(float_element_matches(kNaN, kInf));
  EXPECT_TRUE(float_element_matches(-0.0, 0.0));
}

Tensor f32(std::vector<float> values) {
  return Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(values.size())}, values);
}

TEST(ConformanceCompare, TypesAndShapesMustBeEqual) {
  const Comparison type = compare_tensors(f32({1, 2}), Tensor::from_values<double>(DType::F64, Shape{2}, {1, 2}), "output 'y'");
  EXPECT_FALSE(type.equal);
  EXPECT_EQ(type.reason, "output 'y': element type F32, expected F64");
  const Comparison shape = compare_tensors(f32({1, 2}), Tensor::from_values<float>(DType::F32, Shape{1, 2}, {1, 2}), "output 'y'");
  EXPECT_FALSE(shape.equal);
  EXPECT_EQ(shape.reason, "output 'y': shape [2], expected [1, 2]");
}

TEST(ConformanceCompare, FloatsWithinToleranceAndFirstDifference) {
  EXPECT_TRUE(compare_tensors(f32({1.0f, -0.0f, NAN, INFINITY}), f32({1.0005f, 0.0f, NAN, INFINITY}), "o").equal);
  const Comparison c = compare_tensors(f32({1, 2, 3, 4}), f32({1, 2.5f, 3, 5}), "output 'y'");
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.reason, "output 'y': 2 of 4 elements differ; first at [1]: got 2, expected 2.5; largest |got - expected| 1");
}

TEST(ConformanceCompare, HalfTypesAreComparedAsTheirValues) {
  const auto half = [](std::vector<float> values) {
    std::vector<std::uint16_t> bits;
    for (float v : values) bits.push_back(float_to_half_bits(v));
    return Tensor::from_values<std::uint16_t>(DType::F16, Shape{static_cast<std::int64_t>(bits.size())}, bits);
  };
  EXPECT_TRUE(compare_tensors(half({1.0f, 2048.0f}), half({1.0f, 2049.0f}), "o").equal);  // 2049 rounds to 2048
  EXPECT_FALSE(compare_tensors(half({1.0f}), half({1.5f}), "o").equal);
}

TEST(ConformanceCompare, IntegersAndBoolsExactly) {
  const auto i64 = [](std::vector<std::int64_t> v) {
    return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())}, v);
  };
  EXPECT_TRUE(compare_tensors(i64({1, -5}), i64({1, -5}), "o").equal);
  const Comparison c = compare_tensors(i64({1000000, -5}), i64({1000001, -5}), "output 'n'");
  EXPECT_FALSE(c.equal);  // within 1e-3 relative, but integers are exact
  EXPECT_EQ(c.reason, "output 'n': 1 of 2 elements differ; first at [0]: got 1000000, expected 1000001");
  const Tensor t = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2}, {1, 0});
  const Tensor f = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2}, {0, 0});
  EXPECT_EQ(compare_tensors(t, f, "o").reason, "o: 1 of 2 elements differ; first at [0]: got true, expected false");
  const Tensor i8a = Tensor::from_values<std::int8_t>(DType::I8, Shape{1, 1}, {-3});
  const Tensor i8b = Tensor::from_values<std::int8_t>(DType::I8, Shape{1, 1}, {3});
  EXPECT_EQ(compare_tensors(i8a, i8b, "o").reason, "o: 1 of 1 elements differ; first at [0, 0]: got -3, expected 3");
}

TEST(ConformanceStatus, NamesAndErrorKinds) {
  for (CaseStatus s : {CaseStatus::Pass, CaseStatus::Fail, CaseStatus::UnsupportedOp, CaseStatus::UnsupportedType,
                       CaseStatus::NotExact, CaseStatus::KnownDiff}) {
    EXPECT_EQ(parse_case_status(to_string(s)), s);
  }
  EXPECT_EQ(to_string(CaseStatus::UnsupportedOp), "unsupported-op");
  EXPECT_FALSE(parse_case_status("passed").has_value());
  EXPECT_EQ(status_of_session_error(SessionErrorKind::UnsupportedOperator, false), CaseStatus::UnsupportedOp);
  EXPECT_EQ(status_of_session_error(SessionErrorKind::Unsupported, true), CaseStatus::UnsupportedType);
  EXPECT_EQ(status_of_session_error(SessionErrorKind::ExactModeUnavailable, true), CaseStatus::NotExact);
  EXPECT_EQ(status_of_session_error(SessionErrorKind::ExactModeUnavailable, false), CaseStatus::Fail);
  EXPECT_EQ(status_of_session_error(SessionErrorKind::InvalidModel, false), CaseStatus::Fail);
  EXPECT_EQ(status_of_session_error(SessionErrorKind::InvalidInput, true), CaseStatus::Fail);
}

// ---- whole cases ----

class ConformanceCase : public testing::CaseFolderTest {
 protected:
  ConformanceCase() : CaseFolderTest("onemodel_conformance_") {}
  static std::string floats_tensor(const std::string& name, const std::vector<float>& values) {
    return onnxb::tensor_floats(name, {static_cast<std::int64_t>(values.size())}, values).bytes();
  }
  CaseResult run(ExecutionMode mode = ExecutionMode::Fast) {
    SessionOptions options;
    options.engine = EngineKind::Reference;
    options.mode = mode;
    options.intra_op_threads = 1;
    return run_case(dir_, options);
  }

};

TEST_F(ConformanceCase, IdentityPassesEveryDataSetInBothModes) {
  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()));
  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, -2.0f}));
  write("test_data_set_0/output_0.pb", floats_tensor("Y", {1.0f, -2.0f}));
  write("test_data_set_1/input_0.pb", floats_tensor("X", {NAN, INFINITY}));
  write("test_data_set_1/output_0.pb", floats_tensor("Y", {NAN, INFINITY}));
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const CaseResult r = run(mode);
    EXPECT_EQ(r.status, CaseStatus::Pass) << r.reason;
    EXPECT_EQ(r.data_sets, 2);
    EXPECT_EQ(r.operators, std::vector<std::string>{"Identity"});
    EXPECT_EQ(r.opset, 13);
  }
}

TEST_F(ConformanceCase, AWrongValueInTheSecondDataSetFails) {
  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()));
  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, 2.0f}));
  write("test_data_set_0/output_0.pb", floats_tensor("Y", {1.0005f, 2.0f}));
  write("test_data_set_1/input_0.pb", floats_tensor("X", {1.0f, 2.0f}));
  write("test_data_set_1/output_0.pb", floats_tensor("Y", {1.0f, 2.01f}));
  const CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.data_sets, 1);
  EXPECT_EQ(r.reason.rfind("test_data_set_1: output 'Y': 1 of 2 elements differ; first at [1]", 0), 0u) << r.reason;
}

TEST_F(ConformanceCase, FilesAreMatchedByTheirNames) {
  onnxb::GraphParts g;
  g.nodes.push_back(onnxb::node("Identity", {"A"}, {"YA"}));
  g.nodes.push_back(onnxb::node("Identity", {"B"}, {"YB"}));
  g.inputs.push_back(onnxb::tensor_value_info("A", 1, {1}));
  g.inputs.push_back(onnxb::tensor_value_info("B", 1, {1}));
  g.outputs.push_back(onnxb::tensor_value_info("YA", 1, {1}));
  g.outputs.push_back(onnxb::tensor_value_info("YB", 1, {1}));
  write("model.onnx", onnxb::model_bytes(g));
  write("test_data_set_0/input_0.pb", floats_tensor("B", {2.0f}));
  write("test_data_set_0/input_1.pb", floats_tensor("A", {1.0f}));
  write("test_data_set_0/output_0.pb", floats_tensor("YB", {2.0f}));
  write("test_data_set_0/output_1.pb", floats_tensor("YA", {1.0f}));
  const CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::Pass) << r.reason;
}

TEST_F(ConformanceCase, WrongOutputTypeFails) {
  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()));
  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, 2.0f}));
  write("test_data_set_0/output_0.pb", onnxb::tensor_raw("Y", 11, {2}, std::string(16, '\0')).bytes());
  const CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason, "test_data_set_0: output 'Y': element type F32, expected F64");
}

TEST_F(ConformanceCase, MissingOperatorIsUnsupportedOp) {
  onnxb::GraphParts g = onnxb::identity_graph();
  g.nodes[0] = onnxb::node("Frobnicate", {"X"}, {"Y"});
  write("model.onnx", onnxb::model_bytes(g));
  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, 2.0f}));
  write("test_data_set_0/output_0.pb", floats_tensor("Y", {1.0f, 2.0f}));
  const CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::UnsupportedOp);
  EXPECT_NE(r.reason.find("Frobnicate (opset 13)"), std::string::npos) << r.reason;
  EXPECT_EQ(r.operators, std::vector<std::string>{"Frobnicate"});
}

TEST_F(ConformanceCase, UnstoredAndNestedSequenceValuesAreUnsupportedType) {
  onnxb::GraphParts g = onnxb::identity_graph();
  // COMPLEX64 (14): not stored (STRING is, since issue 17: spec/tensors.md section 8).
  g.inputs[0] = onnxb::tensor_value_info("X", 14, {2});
  g.outputs[0] = onnxb::tensor_value_info("Y", 14, {2});
  write("model.onnx", onnxb::model_bytes(g));
  CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::UnsupportedType);
  EXPECT_EQ(r.reason, "value 'X' has element type COMPLEX64");

  // TypeProto.sequence_type (field 4) holding TypeProto.Sequence.elem_type (field 1): a sequence
  // of sequences, which values do not hold (spec/values.md section 1; a sequence of tensors runs).
  testing::ProtoWriter sequence_type;
  sequence_type.message_field(4, testing::ProtoWriter().message_field(1, onnxb::tensor_type(1, {2})));
  testing::ProtoWriter nested_type;
  nested_type.message_field(4, testing::ProtoWriter().message_field(1, sequence_type));
  g.inputs[0] = onnxb::value_info("X", nested_type);
  g.outputs[0] = onnxb::value_info("Y", nested_type);
  write("model.onnx", onnxb::model_bytes(g));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::UnsupportedType);
  EXPECT_EQ(r.reason.rfind("value 'X' is a sequence of a sequence", 0), 0u) << r.reason;
}

TEST_F(ConformanceCase, AnUnstoredTypeInADataFileIsUnsupportedType) {
  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()));
  // FLOAT6E2M3 (27): two 6-bit elements in two bytes (the 8-bit floats are stored since issue 17).
  write("test_data_set_0/input_0.pb", onnxb::tensor_raw("X", 27, {2}, std::string(2, '\0')).bytes());
  write("test_data_set_0/output_0.pb", floats_tensor("Y", {0.0f, 0.0f}));
  const CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::UnsupportedType);
  EXPECT_EQ(r.reason, "test_data_set_0: input_0.pb has element type FLOAT6E2M3");
}

TEST_F(ConformanceCase, BrokenFilesFailWithTheirMessage) {
  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()).substr(0, 20));
  CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason.rfind("ModelError: ", 0), 0u) << r.reason;

  write("model.onnx", onnxb::model_bytes(onnxb::identity_graph()));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason, "the case has no test_data_set_* folder");

  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, 2.0f}).substr(0, 5));
  write("test_data_set_0/output_0.pb", floats_tensor("Y", {1.0f, 2.0f}));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason.rfind("test_data_set_0: ModelError: ", 0), 0u) << r.reason;

  // A wrong input shape is the session's InvalidInput: a fail, not a gap.
  write("test_data_set_0/input_0.pb", floats_tensor("X", {1.0f, 2.0f, 3.0f}));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_NE(r.reason.find("input 'X'"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace onemodel::conformance
