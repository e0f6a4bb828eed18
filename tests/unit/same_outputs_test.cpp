// The shared bit-for-bit output comparison (tests/support/same_outputs.hpp) must fail on every kind
// of difference a bit-preserving rewrite could introduce, or the pass tests built on it prove
// nothing.
#include "tests/support/same_outputs.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace onemodel {
namespace {

Tensor floats(const std::vector<float>& v) {
  Tensor t = Tensor::empty(DType::F32, Shape{static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.mutable_data<float>()[i] = v[i];
  return t;
}

Tensor ints(const std::vector<std::int32_t>& v) {
  Tensor t = Tensor::empty(DType::I32, Shape{static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.mutable_data<std::int32_t>()[i] = v[i];
  return t;
}

TEST(SameOutputs, EqualRunsPass) {
  test::expect_same_outputs({floats({1.0f, -0.0f}), ints({3, -4})}, {floats({1.0f, -0.0f}), ints({3, -4})}, "equal");
}

TEST(SameOutputs, EveryDifferenceFails) {
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({floats({0.0f})}, {floats({-0.0f})}, "zero sign"), "element 0");
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({floats({1.0f, 2.0f})}, {floats({1.0f, 2.0000002f})}, "last ulp"),
                       "element 1");
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({ints({7})}, {ints({8})}, "integer"), "element 0");
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({floats({1.0f})}, {ints({1})}, "type"), "type");
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({floats({1.0f})}, {floats({1.0f, 1.0f})}, "shape"), "shape");
  EXPECT_FATAL_FAILURE(test::expect_same_outputs({floats({1.0f})}, {}, "count"), "count");
}

}  // namespace
}  // namespace onemodel
