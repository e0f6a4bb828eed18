// spec/tensors.md section 3: shape limits, broadcasting, contiguous strides. Expected values are
// worked out by hand in the comments.
#include <gtest/gtest.h>

#include <vector>

#include "onemodel/shape.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

TensorErrorKind kind_of(void (*f)()) {
  try {
    f();
  } catch (const TensorError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no TensorError";
  return TensorErrorKind::Pool;
}

TEST(Shape, ScalarHasRankZeroAndOneElement) {
  Shape s;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.element_count(), 1);
  EXPECT_EQ(s.to_string(), "[]");
}

TEST(Shape, CountsAndExtents) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.element_count(), 24);
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s.to_string(), "[2, 3, 4]");
  EXPECT_EQ(Shape({5, 0, 7}).element_count(), 0);
  EXPECT_TRUE(Shape({5, 0, 7}).empty());
}

TEST(Shape, RankLimitIsEight) {
  EXPECT_EQ(Shape({1, 1, 1, 1, 1, 1, 1, 1}).rank(), 8);
  EXPECT_EQ(kind_of([] { Shape s{1, 1, 1, 1, 1, 1, 1, 1, 1}; }), TensorErrorKind::Shape);
}

TEST(Shape, ExtentsAreNonNegative32Bit) {
  EXPECT_EQ(kind_of([] { Shape s{-1}; }), TensorErrorKind::Shape);
  EXPECT_EQ(kind_of([] { Shape s{2147483648LL}; }), TensorErrorKind::Shape);
  EXPECT_EQ(Shape({2147483647LL}).element_count(), 2147483647LL);
}

TEST(Shape, PrefixProductsMustFit) {
  // The spec's own example: 100000 * 100000 = 10^10 > 2^31-1 before the zero is reached.
  EXPECT_EQ(kind_of([] { Shape s{100000, 100000, 0}; }), TensorErrorKind::Shape);
  // The zero first keeps every prefix product at 0.
  EXPECT_EQ(Shape({0, 100000, 100000}).element_count(), 0);
  // 46340^2 = 2147395600 fits; 46341^2 = 2147488281 does not.
  EXPECT_EQ(Shape({46340, 46340}).element_count(), 2147395600LL);
  EXPECT_EQ(kind_of([] { Shape s{46341, 46341}; }), TensorErrorKind::Shape);
  // 65536 * 32768 = 2^31: one past the limit.
  EXPECT_EQ(kind_of([] { Shape s{65536, 32768, 1}; }), TensorErrorKind::Shape);
  EXPECT_EQ(Shape({65536, 32767, 1}).element_count(), 2147418112LL);
}

TEST(Shape, ByteSizeLimit) {
  // 2^29 floats = 2^31 bytes: one byte over; 2^29 - 1 floats = 2^31 - 4 bytes fits.
  EXPECT_EQ(kind_of([] { (void)checked_byte_size(Shape{536870912}, DType::F32); }), TensorErrorKind::Shape);
  EXPECT_EQ(checked_byte_size(Shape{536870911}, DType::F32), 2147483644LL);
  EXPECT_EQ(checked_byte_size(Shape{2147483647LL}, DType::U8), 2147483647LL);
  EXPECT_EQ(kind_of([] { (void)checked_byte_size(Shape{268435456}, DType::I64); }), TensorErrorKind::Shape);
  EXPECT_EQ(checked_byte_size(Shape{}, DType::F64), 8);
}

TEST(Shape, BroadcastIsNumpyMultidirectional) {
  EXPECT_EQ(Shape::broadcast(Shape{3, 1, 5}, Shape{4, 5}), (Shape{3, 4, 5}));
  EXPECT_EQ(Shape::broadcast(Shape{}, Shape{2}), (Shape{2}));
  EXPECT_EQ(Shape::broadcast(Shape{1, 0}, Shape{5, 1}), (Shape{5, 0}));
  EXPECT_EQ(Shape::broadcast(Shape{2, 1}, Shape{1}), (Shape{2, 1}));
  EXPECT_EQ(kind_of([] { (void)Shape::broadcast(Shape{2, 3}, Shape{3, 2}); }), TensorErrorKind::Shape);
  EXPECT_EQ(kind_of([] { (void)Shape::broadcast(Shape{0}, Shape{2}); }), TensorErrorKind::Shape);
  // 65536 * 65536 = 2^32: each input fits, the result does not.
  EXPECT_EQ(kind_of([] { (void)Shape::broadcast(Shape{65536, 1}, Shape{1, 65536}); }), TensorErrorKind::Shape);
}

TEST(Shape, ContiguousStridesAreSuffixProducts) {
  Strides s = contiguous_strides(Shape{2, 3, 4});
  EXPECT_EQ(s[0], 12);
  EXPECT_EQ(s[1], 4);
  EXPECT_EQ(s[2], 1);
  EXPECT_EQ(s[3], 0);
  Strides z = contiguous_strides(Shape{3, 0, 5});
  EXPECT_EQ(z[0], 0);
  EXPECT_EQ(z[1], 5);
  EXPECT_EQ(z[2], 1);
  // Empty shape whose suffix product 10^10 does not fit 32 bits: stored as 0.
  Strides big = contiguous_strides(Shape{0, 100000, 100000});
  EXPECT_EQ(big[0], 0);
  EXPECT_EQ(big[1], 100000);
  EXPECT_EQ(big[2], 1);
}

TEST(Shape, FromInt32Span) {
  std::vector<std::int32_t> e = {4, 5};
  EXPECT_EQ(Shape(std::span<const std::int32_t>(e)), (Shape{4, 5}));
  std::vector<std::int32_t> nine(9, 1);
  EXPECT_THROW(Shape(std::span<const std::int32_t>(nine)), TensorError);
}

}  // namespace
}  // namespace onemodel
