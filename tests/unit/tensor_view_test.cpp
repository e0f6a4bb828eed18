// spec/tensors.md sections 3 and 4: views checked element by element against row-major indices
// computed independently in the test; reshape viewability; contiguous(); staleness; typed access.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel {
namespace {

// A [2, 3, 4] I32 tensor whose element (i, j, k) holds its row-major index i*12 + j*4 + k.
Tensor iota(const Shape& shape) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape.element_count()));
  std::iota(v.begin(), v.end(), 0);
  return Tensor::from_values<std::int32_t>(DType::I32, shape, std::span<const std::int32_t>(v));
}

// Visits every index of `shape` in row-major order.
void for_each_index(const Shape& shape, const std::function<void(const std::vector<std::int64_t>&)>& f) {
  if (shape.empty()) return;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(shape.rank()), 0);
  for (std::int64_t n = 0; n < shape.element_count(); ++n) {
    f(idx);
    for (int d = shape.rank() - 1; d >= 0; --d) {
      if (++idx[static_cast<std::size_t>(d)] < shape[d]) break;
      idx[static_cast<std::size_t>(d)] = 0;
    }
  }
}

// Checks every element of `view` against `expected(index)`.
void expect_elements(const Tensor& view, const std::function<std::int32_t(const std::vector<std::int64_t>&)>& expected) {
  view.validate();
  for_each_index(view.shape(), [&](const std::vector<std::int64_t>& idx) {
    ASSERT_EQ(view.at<std::int32_t>(std::span<const std::int64_t>(idx)), expected(idx));
  });
}

TensorErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TensorError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no TensorError";
  return TensorErrorKind::Pool;
}

TEST(TensorView, FreshTensorIsContiguousRowMajor) {
  Tensor t = iota(Shape{2, 3, 4});
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.stride_span()[0], 12);
  EXPECT_EQ(t.stride_span()[1], 4);
  EXPECT_EQ(t.stride_span()[2], 1);
  expect_elements(t, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[1] * 4 + i[2]); });
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.buffer()->data()) % 64, 0u);
}

TEST(TensorView, Permute) {
  Tensor t = iota(Shape{2, 3, 4});
  Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.stride_span()[0], 1);
  EXPECT_EQ(p.stride_span()[1], 12);
  EXPECT_EQ(p.stride_span()[2], 4);
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_EQ(p.buffer(), t.buffer());
  // Result (a, b, c) is source (b, c, a).
  expect_elements(p, [](auto& i) { return static_cast<std::int32_t>(i[1] * 12 + i[2] * 4 + i[0]); });
  EXPECT_EQ(kind_of([&] { (void)t.permute({0, 0, 1}); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.permute({0, 1}); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.permute({0, 1, 3}); }), TensorErrorKind::View);
}

TEST(TensorView, TransposeAndT) {
  Tensor t = iota(Shape{2, 3, 4});
  expect_elements(t.transpose(0, 2), [](auto& i) { return static_cast<std::int32_t>(i[2] * 12 + i[1] * 4 + i[0]); });
  Tensor m = iota(Shape{3, 5});
  Tensor mt = m.t();
  EXPECT_EQ(mt.shape(), (Shape{5, 3}));
  expect_elements(mt, [](auto& i) { return static_cast<std::int32_t>(i[1] * 5 + i[0]); });
  EXPECT_EQ(kind_of([&] { (void)iota(Shape{3}).t(); }), TensorErrorKind::View);
}

TEST(TensorView, Slice) {
  Tensor t = iota(Shape{2, 3, 4});
  Tensor s = t.slice(1, 1, 3);
  EXPECT_EQ(s.shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(s.offset(), 4);
  expect_elements(s, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + (i[1] + 1) * 4 + i[2]); });
  // ceil((4 - 0) / 3) = 2: k in {0, 3}.
  Tensor st = t.slice(2, 0, 4, 3);
  EXPECT_EQ(st.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(st.stride_span()[2], 3);
  expect_elements(st, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[1] * 4 + i[2] * 3); });
  // ceil((3 - 1) / 5) = 1.
  Tensor one = t.slice(2, 1, 3, 5);
  EXPECT_EQ(one.shape(), (Shape{2, 3, 1}));
  expect_elements(one, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[1] * 4 + 1); });
  // An empty slice leaves the offset alone.
  Tensor empty = t.slice(1, 2, 2);
  EXPECT_EQ(empty.shape(), (Shape{2, 0, 4}));
  EXPECT_EQ(empty.offset(), 0);
  empty.validate();
  EXPECT_EQ(kind_of([&] { (void)t.slice(1, 2, 1); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.slice(1, -1, 2); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.slice(1, 0, 4); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.slice(1, 0, 3, 0); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.slice(3, 0, 1); }), TensorErrorKind::View);
}

TEST(TensorView, Select) {
  Tensor t = iota(Shape{2, 3, 4});
  Tensor s = t.select(1, 2);
  EXPECT_EQ(s.shape(), (Shape{2, 4}));
  EXPECT_EQ(s.offset(), 8);
  expect_elements(s, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + 8 + i[1]); });
  Tensor scalar = t.select(0, 1).select(0, 2).select(0, 3);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.at<std::int32_t>({}), 12 + 8 + 3);
  EXPECT_EQ(kind_of([&] { (void)t.select(1, 3); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.select(1, -1); }), TensorErrorKind::View);
}

TEST(TensorView, Flip) {
  Tensor t = iota(Shape{2, 3, 4});
  Tensor f = t.flip(2);
  EXPECT_EQ(f.offset(), 3);
  EXPECT_EQ(f.stride_span()[2], -1);
  expect_elements(f, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[1] * 4 + (3 - i[2])); });
  Tensor ff = t.flip(0).flip(1);
  EXPECT_EQ(ff.offset(), 12 + 8);
  expect_elements(ff, [](auto& i) { return static_cast<std::int32_t>((1 - i[0]) * 12 + (2 - i[1]) * 4 + i[2]); });
  Tensor back = f.flip(2);
  EXPECT_EQ(back.offset(), 0);
  EXPECT_TRUE(back.is_contiguous());
  // Extent 0: offset unchanged.
  Tensor e = iota(Shape{0, 3});
  EXPECT_EQ(e.flip(0).offset(), 0);
}

TEST(TensorView, UnsqueezeAndSqueeze) {
  Tensor t = iota(Shape{2, 3, 4});
  Tensor u = t.unsqueeze(1);
  EXPECT_EQ(u.shape(), (Shape{2, 1, 3, 4}));
  EXPECT_EQ(u.stride_span()[1], 12);  // extent 3 * stride 4 of the dimension it precedes
  expect_elements(u, [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[2] * 4 + i[3]); });
  Tensor end = t.unsqueeze(3);
  EXPECT_EQ(end.shape(), (Shape{2, 3, 4, 1}));
  EXPECT_EQ(end.stride_span()[3], 1);
  Tensor front = t.unsqueeze(0);
  EXPECT_EQ(front.stride_span()[0], 24);
  EXPECT_EQ(u.squeeze(1).shape(), t.shape());
  expect_elements(u.squeeze(1), [](auto& i) { return static_cast<std::int32_t>(i[0] * 12 + i[1] * 4 + i[2]); });
  Tensor ones = iota(Shape{1, 2, 1, 3, 1});
  Tensor sq = ones.squeeze();
  EXPECT_EQ(sq.shape(), (Shape{2, 3}));
  expect_elements(sq, [](auto& i) { return static_cast<std::int32_t>(i[0] * 3 + i[1]); });
  EXPECT_EQ(iota(Shape{1, 1}).squeeze().rank(), 0);
  EXPECT_EQ(kind_of([&] { (void)t.squeeze(0); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)t.unsqueeze(4); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)iota(Shape{1, 1, 1, 1, 1, 1, 1, 1}).unsqueeze(0); }), TensorErrorKind::View);
}

TEST(TensorView, Expand) {
  Tensor col = iota(Shape{3, 1});
  Tensor e = col.expand(Shape{2, 3, 4});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e.stride_span()[0], 0);
  EXPECT_EQ(e.stride_span()[1], 1);
  EXPECT_EQ(e.stride_span()[2], 0);
  expect_elements(e, [](auto& i) { return static_cast<std::int32_t>(i[1]); });
  EXPECT_EQ(iota(Shape{1}).expand(Shape{0}).shape(), (Shape{0}));
  EXPECT_EQ(kind_of([&] { (void)col.expand(Shape{2, 4}); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)col.expand(Shape{3}); }), TensorErrorKind::View);
  // The copy of a broadcast view is a full row-major tensor.
  Tensor c = e.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.buffer(), e.buffer());
  expect_elements(c, [](auto& i) { return static_cast<std::int32_t>(i[1]); });
}

TEST(TensorView, TryReshapeOfContiguousIsAView) {
  Tensor t = iota(Shape{2, 3, 4});
  auto r = t.try_reshape(Shape{6, 4});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->buffer(), t.buffer());
  expect_elements(*r, [](auto& i) { return static_cast<std::int32_t>(i[0] * 4 + i[1]); });
  EXPECT_EQ(kind_of([&] { (void)t.try_reshape(Shape{5, 5}); }), TensorErrorKind::Shape);
}

TEST(TensorView, TryReshapeFollowsTheRunRule) {
  // Columns 0..2 of a [4, 6] matrix: shape [4, 3], strides [6, 1]. 6 != 1 * 3, so two runs:
  // (length 4, inner stride 6) and (length 3, inner stride 1).
  Tensor m = iota(Shape{4, 6});
  Tensor s = m.slice(1, 0, 3);
  auto value = [](std::int64_t row, std::int64_t col) { return static_cast<std::int32_t>(row * 6 + col); };
  // [2, 2, 3]: groups [2, 2] -> 4 and [3] -> 3; strides 12, 6 | 1.
  auto a = s.try_reshape(Shape{2, 2, 3});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->stride_span()[0], 12);
  EXPECT_EQ(a->stride_span()[1], 6);
  EXPECT_EQ(a->stride_span()[2], 1);
  expect_elements(*a, [&](auto& i) { return value(i[0] * 2 + i[1], i[2]); });
  // Extent-1 dimensions inside or after the groups are fine.
  auto b = s.try_reshape(Shape{1, 4, 1, 3, 1});
  ASSERT_TRUE(b.has_value());
  expect_elements(*b, [&](auto& i) { return value(i[1], i[3]); });
  // A group that would cross the boundary between the runs is not viewable.
  EXPECT_FALSE(s.try_reshape(Shape{12}).has_value());
  EXPECT_FALSE(s.try_reshape(Shape{2, 6}).has_value());
  EXPECT_FALSE(s.try_reshape(Shape{6, 2}).has_value());
  // Reshape falls back to a copy; row-major order is the same.
  Tensor flat = s.reshape({-1});
  EXPECT_NE(flat.buffer(), s.buffer());
  expect_elements(flat, [&](auto& i) { return value(i[0] / 3, i[0] % 3); });
}

TEST(TensorView, TryReshapeOfATransposeAndFlip) {
  // m.t() of [3, 4]: shape [4, 3], strides [1, 4]: runs (4, 1) and (3, 4), not mergeable.
  Tensor m = iota(Shape{3, 4});
  Tensor mt = m.t();
  EXPECT_FALSE(mt.try_reshape(Shape{12}).has_value());
  auto split = mt.try_reshape(Shape{2, 2, 3});
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->stride_span()[0], 2);
  EXPECT_EQ(split->stride_span()[1], 1);
  EXPECT_EQ(split->stride_span()[2], 4);
  expect_elements(*split, [](auto& i) { return static_cast<std::int32_t>(i[2] * 4 + i[0] * 2 + i[1]); });
  // A flipped contiguous tensor is one run with stride -1: a reversed flat view is possible.
  Tensor f = iota(Shape{2, 3}).flip(0).flip(1);
  EXPECT_EQ(f.stride_span()[0], -3);
  auto flat = f.try_reshape(Shape{6});
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->stride_span()[0], -1);
  expect_elements(*flat, [](auto& i) { return static_cast<std::int32_t>(5 - i[0]); });
}

TEST(TensorView, ReshapeInfersOneExtent) {
  Tensor t = iota(Shape{2, 3, 4});
  EXPECT_EQ(t.reshape({-1, 4}).shape(), (Shape{6, 4}));
  EXPECT_EQ(t.reshape({2, -1}).shape(), (Shape{2, 12}));
  EXPECT_EQ(kind_of([&] { (void)t.reshape({-1, -1}); }), TensorErrorKind::Shape);
  EXPECT_EQ(kind_of([&] { (void)t.reshape({-1, 5}); }), TensorErrorKind::Shape);
  EXPECT_EQ(kind_of([&] { (void)t.reshape({-2, 12}); }), TensorErrorKind::Shape);
  Tensor e = iota(Shape{0, 3});
  EXPECT_EQ(kind_of([&] { (void)e.reshape({-1, 0}); }), TensorErrorKind::Shape);
  Tensor er = e.reshape({3, 0, 2});
  EXPECT_EQ(er.shape(), (Shape{3, 0, 2}));
  EXPECT_EQ(er.stride_span()[0], 0);
  EXPECT_EQ(er.stride_span()[1], 2);
  er.validate();
}

TEST(TensorView, ContiguousReturnsItselfOrACopy) {
  Tensor t = iota(Shape{2, 3});
  EXPECT_EQ(t.contiguous().buffer(), t.buffer());
  // Extent-1 strides are ignored by the contiguity test.
  Tensor odd = t.select(0, 1).unsqueeze(0);
  EXPECT_TRUE(odd.is_contiguous());
  Tensor c = t.t().contiguous();
  EXPECT_NE(c.buffer(), t.buffer());
  std::vector<std::int32_t> expected = {0, 3, 1, 4, 2, 5};
  EXPECT_EQ(c.to_vector<std::int32_t>(), expected);
  EXPECT_EQ(t.t().to_vector<std::int32_t>(), expected);
  auto span = c.data<std::int32_t>();
  EXPECT_EQ(std::vector<std::int32_t>(span.begin(), span.end()), expected);
  EXPECT_EQ(kind_of([&] { (void)t.t().data<std::int32_t>(); }), TensorErrorKind::View);
}

TEST(TensorAccess, StaleAfterRelease) {
  Tensor t = iota(Shape{4});
  Tensor view = t.slice(0, 1, 3);
  Tensor copy = t;
  t.release();
  EXPECT_TRUE(view.is_stale());
  EXPECT_EQ(kind_of([&] { (void)view.at<std::int32_t>({0}); }), TensorErrorKind::Stale);
  EXPECT_EQ(kind_of([&] { (void)copy.data<std::int32_t>(); }), TensorErrorKind::Stale);
  EXPECT_EQ(kind_of([&] { (void)copy.to_vector<std::int32_t>(); }), TensorErrorKind::Stale);
  // Releasing twice throws.
  EXPECT_EQ(kind_of([&] { copy.release(); }), TensorErrorKind::Stale);
  EXPECT_EQ(kind_of([&] { (void)Tensor().at<float>({}); }), TensorErrorKind::Stale);
}

TEST(TensorAccess, TypeAndIndexChecks) {
  Tensor t = iota(Shape{2, 2});
  EXPECT_EQ(kind_of([&] { (void)t.at<float>({0, 0}); }), TensorErrorKind::Type);
  EXPECT_EQ(kind_of([&] { (void)t.at<std::uint32_t>({0, 0}); }), TensorErrorKind::Type);
  EXPECT_EQ(kind_of([&] { (void)t.at<std::int32_t>({0, 2}); }), TensorErrorKind::Index);
  EXPECT_EQ(kind_of([&] { (void)t.at<std::int32_t>({0}); }), TensorErrorKind::Index);
  EXPECT_EQ(kind_of([&] { (void)t.at<std::int32_t>({-1, 0}); }), TensorErrorKind::Index);
  Tensor h = Tensor::zeros(DType::F16, Shape{2});
  EXPECT_EQ(h.at<std::uint16_t>({1}), 0);
  EXPECT_EQ(kind_of([&] { (void)Tensor::from_bytes(DType::F32, Shape{2}, std::vector<std::byte>(7)); }),
            TensorErrorKind::Shape);
}

TEST(TensorAccess, WritesAreVisibleThroughViewsAndBumpTheVersion) {
  Tensor t = Tensor::zeros(DType::F32, Shape{2, 3});
  EXPECT_EQ(t.buffer()->version(), 0u);
  t.t().set<float>({2, 1}, 4.5f);
  EXPECT_EQ(t.at<float>({1, 2}), 4.5f);
  EXPECT_EQ(t.buffer()->version(), 1u);
  (void)t.mutable_data<float>();
  EXPECT_EQ(t.buffer()->version(), 2u);
  Tensor b = Tensor::zeros(DType::Bool, Shape{3});
  b.set<bool>({1}, true);
  EXPECT_TRUE(b.at<bool>({1}));
  EXPECT_EQ(b.at<std::uint8_t>({1}), 1);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{false, true, false}));
}

TEST(TensorAccess, OverChecksTheAllocationFits) {
  auto buffer = BufferPool::shared().rent(64);
  EXPECT_EQ(kind_of([&] { (void)Tensor::over(buffer, 0, 64, DType::F32, Shape{17}); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)Tensor::over(buffer, 2, 32, DType::F32, Shape{2}); }), TensorErrorKind::View);
  EXPECT_EQ(kind_of([&] { (void)Tensor::over(buffer, 32, 64, DType::F32, Shape{2}); }), TensorErrorKind::View);
  Tensor ok = Tensor::over(buffer, 32, 32, DType::F32, Shape{2});
  ok.validate();
  EXPECT_EQ(ok.capacity_elements(), 8);
}

TEST(TensorAccess, EmptyTensorsAreValidAndContiguous) {
  Tensor e = Tensor::empty(DType::F32, Shape{3, 0, 2});
  EXPECT_TRUE(e.is_contiguous());
  e.validate();
  EXPECT_TRUE(e.to_vector<float>().empty());
  Tensor v = e.permute({2, 1, 0}).flip(0).slice(2, 1, 2);
  v.validate();
  EXPECT_EQ(v.shape(), (Shape{2, 0, 1}));
}

}  // namespace
}  // namespace onemodel
