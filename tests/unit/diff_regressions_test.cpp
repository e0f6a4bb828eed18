// Saved counterexamples of the differential gate (diff/counterexample.hpp): the archive keeps
// every bit of a case, and every case in tests/diff/regressions/ gives the reference bits on
// every path at 1 and 2 threads, through the override it was saved from.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "diff/counterexample.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

OpCase special_values_case() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float sub = std::numeric_limits<float>::denorm_min();
  OpCase c;
  c.op = "Gemm";
  c.opset = 13;
  c.attributes = {ir_builder::float_attr("alpha", 0.75f), ir_builder::int_attr("transB", 1)};
  c.inputs = {Tensor::from_values<float>(DType::F32, Shape{2, 3}, {1.0f, -0.0f, inf, sub, nan, -2.5f}),
              Tensor::from_values<float>(DType::F32, Shape{2, 3}, {0.0f, 3.0f, -1.0f, 1e-30f, 2.0f, -sub}),
              Tensor()};
  c.constant = {false, true, false};
  return c;
}

TEST(Counterexample, TheArchiveKeepsEveryBit) {
  const OpCase c = special_values_case();
  const auto file = std::filesystem::temp_directory_path() / "onemodel_counterexample_roundtrip.json";
  Counterexample saved = make_counterexample("roundtrip", c);
  saved.difference = "none";
  save_counterexample(saved, file);
  const OpCase back = case_of(load_counterexample(file));
  std::filesystem::remove(file);
  EXPECT_EQ(back.op, c.op);
  EXPECT_EQ(back.opset, c.opset);
  ASSERT_EQ(back.attributes.size(), c.attributes.size());
  EXPECT_EQ(ir_builder::float_bits(back.attributes[0].f), ir_builder::float_bits(0.75f));
  EXPECT_EQ(back.attributes[1].i, 1);
  EXPECT_EQ(back.constant, c.constant);
  EXPECT_EQ(first_difference(back.inputs, c.inputs), "");
  EXPECT_FALSE(back.inputs[2].defined());
}

TEST(Counterexample, AOneBitDifferenceIsFound) {
  const Tensor a = Tensor::from_values<float>(DType::F32, Shape{2}, {1.0f, 0.0f});
  const Tensor b = Tensor::from_values<float>(DType::F32, Shape{2}, {1.0f, -0.0f});
  EXPECT_NE(first_difference({a}, {b}), "");
  EXPECT_EQ(first_difference({a}, {a}), "");
}

// STRING tensors (spec/tensors.md section 8) reach the gate as outputs of Cast(to=STRING) and as
// feeds of string models; the CI fuzz smoke of session 12 aborted on both (byte access refused).
// Elements are compared as strings and archived length-prefixed, so "ab","c" and "a","bc" differ.
TEST(Counterexample, StringTensorsAreComparedAndArchivedAsStrings) {
  const Tensor a = Tensor::from_strings(Shape{2}, std::vector<std::string>{"ab", "c"});
  const Tensor b = Tensor::from_strings(Shape{2}, std::vector<std::string>{"a", "bc"});
  EXPECT_EQ(first_difference({a}, {a}), "");
  EXPECT_NE(first_difference({a}, {b}), "");
  EXPECT_NE(tensor_hash(a), tensor_hash(b));
  OpCase c;
  c.op = "StringConcat";
  c.opset = 20;
  c.inputs = {a, b};
  c.constant = {false, false};
  const auto file = std::filesystem::temp_directory_path() / "onemodel_counterexample_strings.json";
  save_counterexample(make_counterexample("strings", c), file);
  const OpCase back = case_of(load_counterexample(file));
  std::filesystem::remove(file);
  ASSERT_EQ(back.inputs.size(), 2u);
  EXPECT_EQ(back.inputs[1].to_vector<std::string>(), (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(first_difference(back.inputs, c.inputs), "");
}

TEST(Counterexample, SavedRegressionsGiveTheReferenceBitsEverywhere) {
  const std::filesystem::path folder = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "tests/diff/regressions";
  int replayed = 0;
  CaseTally tally;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".json") continue;
    const Counterexample saved = load_counterexample(entry.path());
    SCOPED_TRACE(entry.path().filename().string());
    RunTally runs;
    EXPECT_EQ(check_everywhere(case_of(saved), "replay-" + saved.property, &runs), "");
    tally.add(runs);
    ++replayed;
  }
  EXPECT_GE(replayed, 1);
  // Each saved case is a difference an override once made: it must still run that override (a
  // replay through the reference kernel would compare it with itself).
  EXPECT_EQ(tally.override_cases, static_cast<std::size_t>(replayed)) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
