// Properties of shapes and views (spec/tensors.md sections 3 and 4), checked with rapidcheck:
// element counts never wrap (compared against 128-bit arithmetic), reshape reads the same
// row-major sequence as a contiguous copy, permute then its inverse is the identity, slice and
// flip read the elements an independently computed index names.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel {
namespace {

constexpr std::int64_t kLimit = 2147483647;

// An I32 tensor whose elements hold their own row-major position.
Tensor iota(const Shape& shape) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape.element_count()));
  std::iota(v.begin(), v.end(), 0);
  return Tensor::from_values<std::int32_t>(DType::I32, shape, std::span<const std::int32_t>(v));
}

// Row-major position of `idx` in `shape`, computed from scratch.
std::int64_t row_major(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& idx) {
  std::int64_t pos = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) pos = pos * extents[d] + idx[d];
  return pos;
}

std::vector<std::int64_t> extents_of(const Shape& s) {
  return std::vector<std::int64_t>(s.extents().begin(), s.extents().end());
}

// Every index of `extents` in row-major order.
std::vector<std::vector<std::int64_t>> all_indices(const std::vector<std::int64_t>& extents) {
  std::vector<std::vector<std::int64_t>> out;
  std::int64_t count = 1;
  for (auto e : extents) count *= e;
  std::vector<std::int64_t> idx(extents.size(), 0);
  for (std::int64_t n = 0; n < count; ++n) {
    out.push_back(idx);
    for (std::size_t d = extents.size(); d-- > 0;) {
      if (++idx[d] < extents[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

rc::Gen<std::vector<std::int64_t>> small_extents(int min_rank, int max_rank, int max_extent) {
  return rc::gen::mapcat(rc::gen::inRange(min_rank, max_rank + 1), [max_extent](int rank) {
    return rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(rank),
                                                         rc::gen::inRange<std::int64_t>(0, max_extent + 1));
  });
}

rc::Gen<std::vector<int>> permutation(int rank) {
  std::vector<int> identity(static_cast<std::size_t>(rank));
  std::iota(identity.begin(), identity.end(), 0);
  return rc::gen::map(rc::gen::arbitrary<unsigned>(), [identity](unsigned seed) {
    std::vector<int> p = identity;
    // Fisher-Yates driven by the seed (rapidcheck shrinks the seed).
    for (std::size_t i = p.size(); i > 1; --i) {
      seed = seed * 1103515245u + 12345u;
      std::swap(p[i - 1], p[(seed >> 8) % i]);
    }
    return p;
  });
}

RC_GTEST_PROP(ShapeProperty, ElementCountNeverWraps, ()) {
  const auto extent = rc::gen::oneOf(rc::gen::inRange<std::int64_t>(-2, 5), rc::gen::inRange<std::int64_t>(0, 70000),
                                     rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 32));
  const auto extents = *rc::gen::mapcat(rc::gen::inRange(0, 10), [extent](int rank) {
    return rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(rank), extent);
  });
  // The rule in 128-bit arithmetic: rank <= 8, each extent in [0, 2^31-1], every prefix product
  // <= 2^31-1 (products of up to 9 factors below 2^32 are kept below 2^128 by stopping early).
  bool valid = extents.size() <= 8;
  unsigned __int128 product = 1;
  for (std::int64_t e : extents) {
    if (e < 0 || e > kLimit) valid = false;
    if (!valid) break;
    product *= static_cast<unsigned __int128>(e);
    if (product > static_cast<unsigned __int128>(kLimit)) valid = false;
  }
  if (valid) {
    const Shape s{std::span<const std::int64_t>(extents)};
    RC_ASSERT(static_cast<unsigned __int128>(s.element_count()) == product);
    RC_ASSERT(s.rank() == static_cast<int>(extents.size()));
  } else {
    try {
      const Shape s{std::span<const std::int64_t>(extents)};
      RC_FAIL("accepted a shape beyond the limits");
    } catch (const TensorError& e) {
      RC_ASSERT(e.kind() == TensorErrorKind::Shape);
    }
  }
}

// A strided source: a random permutation of a random shape, maybe flipped and sliced.
Tensor strided_source() {
  // Mostly non-empty (empty tensors are trivially viewable); now and then an extent 0.
  const bool allow_empty = *rc::gen::inRange(0, 10) == 0;
  const auto extents = *rc::gen::mapcat(rc::gen::inRange(1, 5), [allow_empty](int rank) {
    return rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(rank),
                                                         rc::gen::inRange<std::int64_t>(allow_empty ? 0 : 1, 5));
  });
  const Tensor base = iota(Shape{std::span<const std::int64_t>(extents)});
  const auto p = *permutation(base.rank());
  Tensor t = base.permute(std::span<const int>(p));
  if (*rc::gen::arbitrary<bool>()) t = t.flip(*rc::gen::inRange(0, t.rank()));
  if (*rc::gen::arbitrary<bool>()) {
    const int axis = *rc::gen::inRange(0, t.rank());
    const std::int64_t size = t.shape()[axis];
    const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, size + 1);
    const std::int64_t end = *rc::gen::inRange<std::int64_t>(start, size + 1);
    t = t.slice(axis, start, end, *rc::gen::inRange<std::int64_t>(1, 4));
  }
  return t;
}

// A random shape with `count` elements: count's factors spread over up to 5 dimensions, with
// extent-1 dimensions mixed in.
std::vector<std::int64_t> random_factorization(std::int64_t count) {
  const int rank = *rc::gen::inRange(1, 6);
  std::vector<std::int64_t> out(static_cast<std::size_t>(rank), 1);
  if (count == 0) {
    out[static_cast<std::size_t>(*rc::gen::inRange(0, rank))] = 0;
    for (auto& e : out) {
      if (e != 0) e = *rc::gen::inRange<std::int64_t>(1, 4);
    }
    return out;
  }
  std::int64_t rest = count;
  for (std::int64_t f = 2; rest > 1; ++f) {
    while (rest % f == 0) {
      out[static_cast<std::size_t>(*rc::gen::inRange(0, rank))] *= f;
      rest /= f;
    }
  }
  return out;
}

RC_GTEST_PROP(ShapeProperty, ReshapeReadsTheSameRowMajorSequenceAsACopy, ()) {
  const Tensor source = strided_source();
  const auto expected = source.contiguous().to_vector<std::int32_t>();
  // Several target shapes per source, so each run covers many groupings.
  for (int trial = 0; trial < 8; ++trial) {
    const auto target = random_factorization(source.element_count());
    const Tensor reshaped = source.reshape(std::span<const std::int64_t>(target));
    reshaped.validate();
    RC_ASSERT(extents_of(reshaped.shape()) == target);
    RC_ASSERT(reshaped.to_vector<std::int32_t>() == expected);
    if (auto view = source.try_reshape(reshaped.shape())) {
      RC_ASSERT(view->buffer() == source.buffer());
      RC_ASSERT(view->to_vector<std::int32_t>() == expected);
    }
    // Element by element through at(), against row-major positions in the target shape.
    for (const auto& idx : all_indices(target)) {
      RC_ASSERT(reshaped.at<std::int32_t>(std::span<const std::int64_t>(idx)) ==
                expected[static_cast<std::size_t>(row_major(target, idx))]);
    }
  }
}

RC_GTEST_PROP(ShapeProperty, PermuteThenInverseIsIdentity, ()) {
  const Tensor t = strided_source();
  const auto p = *permutation(t.rank());
  std::vector<int> inverse(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) inverse[static_cast<std::size_t>(p[i])] = static_cast<int>(i);
  const Tensor permuted = t.permute(std::span<const int>(p));
  const Tensor back = permuted.permute(std::span<const int>(inverse));
  RC_ASSERT(back.shape() == t.shape());
  RC_ASSERT(back.strides() == t.strides());
  RC_ASSERT(back.offset() == t.offset());
  // Result index i reads source index s with s[p[d]] = i[d].
  for (const auto& idx : all_indices(extents_of(permuted.shape()))) {
    std::vector<std::int64_t> src(idx.size());
    for (std::size_t d = 0; d < idx.size(); ++d) src[static_cast<std::size_t>(p[d])] = idx[d];
    RC_ASSERT(permuted.at<std::int32_t>(std::span<const std::int64_t>(idx)) ==
              t.at<std::int32_t>(std::span<const std::int64_t>(src)));
  }
}

RC_GTEST_PROP(ShapeProperty, SliceAndFlipReadTheNamedElements, ()) {
  const auto extents = *small_extents(1, 4, 5);
  const Tensor t = iota(Shape{std::span<const std::int64_t>(extents)});
  const int axis = *rc::gen::inRange(0, t.rank());
  const std::int64_t size = extents[static_cast<std::size_t>(axis)];
  const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, size + 1);
  const std::int64_t end = *rc::gen::inRange<std::int64_t>(start, size + 1);
  const std::int64_t step = *rc::gen::inRange<std::int64_t>(1, 5);
  const Tensor s = t.slice(axis, start, end, step);
  s.validate();
  RC_ASSERT(s.shape()[axis] == (end - start + step - 1) / step);
  for (const auto& idx : all_indices(extents_of(s.shape()))) {
    auto src = idx;
    src[static_cast<std::size_t>(axis)] = start + idx[static_cast<std::size_t>(axis)] * step;
    RC_ASSERT(s.at<std::int32_t>(std::span<const std::int64_t>(idx)) == row_major(extents, src));
  }
  const Tensor f = t.flip(axis);
  f.validate();
  for (const auto& idx : all_indices(extents)) {
    auto src = idx;
    src[static_cast<std::size_t>(axis)] = size - 1 - idx[static_cast<std::size_t>(axis)];
    RC_ASSERT(f.at<std::int32_t>(std::span<const std::int64_t>(idx)) == row_major(extents, src));
  }
  // Slicing the flipped view matches flipping the index by hand as well.
  const Tensor fs = f.slice(axis, start, end, step);
  for (const auto& idx : all_indices(extents_of(fs.shape()))) {
    auto src = idx;
    src[static_cast<std::size_t>(axis)] = size - 1 - (start + idx[static_cast<std::size_t>(axis)] * step);
    RC_ASSERT(fs.at<std::int32_t>(std::span<const std::int64_t>(idx)) == row_major(extents, src));
  }
}

RC_GTEST_PROP(ShapeProperty, BroadcastMatchesTheNumpyRule, ()) {
  const auto a = *small_extents(0, 4, 3);
  const auto b = *small_extents(0, 4, 3);
  const std::size_t rank = std::max(a.size(), b.size());
  bool ok = true;
  std::vector<std::int64_t> expected(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t ea = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const std::int64_t eb = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (ea != eb && ea != 1 && eb != 1) ok = false;
    expected[i] = ea == 1 ? eb : ea;
  }
  const Shape sa{std::span<const std::int64_t>(a)};
  const Shape sb{std::span<const std::int64_t>(b)};
  if (ok) {
    RC_ASSERT(extents_of(Shape::broadcast(sa, sb)) == expected);
  } else {
    RC_ASSERT_THROWS_AS(Shape::broadcast(sa, sb), TensorError);
  }
}

}  // namespace
}  // namespace onemodel
