// Transpose and strided copy (optimized/kernels/transpose/): random permutations of ranks 1..6
// with random extents (0, 1 and sizes around and above the tile), every element size, 1 and 2
// threads, compared with a naive gather written from spec/ops/shape-indexing.md section 2
// (output axis i is input axis perm[i]).
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/transpose/transpose.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/transpose/tile_paths.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> transpose_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(onemodel::opt::tr::variants());
}

// The naive definition: for every output index, read the input at the permuted index.
std::vector<std::uint8_t> naive_transpose(const std::vector<std::uint8_t>& in, const std::vector<std::int32_t>& shape,
                                          const std::vector<int>& perm, std::size_t width) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> in_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * static_cast<std::size_t>(shape[d]);
  std::size_t n = 1;
  for (auto e : shape) n *= static_cast<std::size_t>(e);
  std::vector<std::uint8_t> out(n * width);
  std::vector<std::size_t> index(rank, 0);  // output index
  for (std::size_t o = 0; o < n; ++o) {
    std::size_t src = 0;
    for (std::size_t i = 0; i < rank; ++i) src += index[i] * in_stride[static_cast<std::size_t>(perm[i])];
    std::memcpy(out.data() + o * width, in.data() + src * width, width);
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < static_cast<std::size_t>(shape[static_cast<std::size_t>(perm[d])])) break;
      index[d] = 0;
    }
  }
  return out;
}

void check(const std::vector<std::int32_t>& shape, const std::vector<int>& perm, std::size_t width) {
  std::size_t n = 1;
  for (auto e : shape) n *= static_cast<std::size_t>(e);
  std::vector<std::uint8_t> in(n * width);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>((i * 131 + 7) ^ (i >> 8));
  const auto want = naive_transpose(in, shape, perm, width);
  for (Isa isa : transpose_variant_paths()) {
    for (int threads : {1, 2}) {
      ThreadPool pool(threads, ThreadPool::Sharing::Always);
      const KernelContext context{isa, true, &pool};
      std::vector<std::uint8_t> got(want.size() + 8, 0xEE);
      ASSERT_TRUE(onemodel::opt::tr::transpose(context, width, in.data(), shape, perm, got.data()));
      // want is empty for a zero extent: memcmp with its null data would be undefined.
      ASSERT_TRUE(want.empty() || std::memcmp(got.data(), want.data(), want.size()) == 0)
          << "width " << width << " threads " << threads;
      for (std::size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xEE) << "wrote past the end";
    }
  }
}

TEST(TransposeKernel, FixedCases) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("TransposeKernel.FixedCases");
  check({3, 5}, {1, 0}, 4);
  check({130, 70}, {1, 0}, 4);          // tiles with ragged edges
  check({2, 3, 4}, {0, 1, 2}, 4);       // identity: one run
  check({2, 1, 4}, {1, 2, 0}, 2);       // axis of extent 1
  check({4, 0, 3}, {2, 1, 0}, 4);       // empty
  check({}, {}, 4);                     // scalar
  check({1, 64, 33, 17}, {0, 2, 3, 1}, 4);  // NCHW -> NHWC
  check({2, 300, 200}, {0, 2, 1}, 8);
  check({5, 40000}, {1, 0}, 1);
  check({3, 2, 30000}, {1, 0, 2}, 4);   // long runs split into pieces
}

TEST(TransposeKernel, RefusesOddElementSizes) {
  const KernelContext context{Isa::Scalar, true, nullptr};
  std::vector<std::uint8_t> in(45), out(45);
  const std::int32_t shape[] = {3, 5};
  const int perm[] = {1, 0};
  EXPECT_FALSE(onemodel::opt::tr::transpose(context, 3, in.data(), shape, perm, out.data()));
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(TransposeKernel, RandomPermutationsOfRanksOneToSix) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("TransposeKernel.RandomPermutationsOfRanksOneToSix");
  EXPECT_TRUE(rc::check("transpose", []() {
    const int rank = *rc::gen::inRange(1, 7);
    auto shape = *rc::gen::container<std::vector<std::int32_t>>(
        static_cast<std::size_t>(rank), rc::gen::oneOf(rc::gen::just(1), rc::gen::inRange(0, 6), rc::gen::inRange(6, 90)));
    std::size_t n = 1;
    for (auto e : shape) n *= static_cast<std::size_t>(e);
    RC_PRE(n <= 300000u);
    std::vector<int> perm(static_cast<std::size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    perm = *rc::gen::just(perm);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[(seed / (i * 7 + 1) + i * 2654435761u) % i]);
    const std::size_t width = *rc::gen::element<std::size_t>(1, 2, 4, 8);
    check(shape, perm, width);
    RC_ASSERT(!::testing::Test::HasFailure());
  }));
  // Most generated shapes are small enough to be one chunk; a run of 100 can hold none that splits
  // (seed 11891745604532139282 did, and the two-thread guard failed CI's stop 29). One case that
  // always splits keeps the guard's meaning: the two-thread path ran at least once here.
  check({2, 300, 200}, {0, 2, 1}, 4);
}

#endif  // ONEMODEL_HAVE_RAPIDCHECK

// strided_copy of the view (shape, strides over base) on every path at 1 and 2 threads against the
// definition: element (i0, ..., ik) at base + sum(i_d * stride_d). `low` and `high` are the
// view's lowest and highest element offsets.
bool strided_view_matches(const std::vector<std::int32_t>& shape, const std::vector<std::int64_t>& strides,
                          std::size_t width, std::int64_t low, std::int64_t high) {
  std::size_t n = 1;
  for (auto e : shape) n *= static_cast<std::size_t>(e);
  const std::size_t rank = shape.size();
  std::vector<std::uint8_t> buffer(static_cast<std::size_t>(high - low + 1) * width);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>(i * 37 + (i >> 7));
  const std::uint8_t* base = buffer.data() + static_cast<std::size_t>(-low) * width;
  std::vector<std::uint8_t> want(n * width);
  std::vector<std::int64_t> index(rank, 0);
  for (std::size_t o = 0; o < n; ++o) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
    std::memcpy(want.data() + o * width, base + off * static_cast<std::int64_t>(width), width);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  for (Isa isa : transpose_variant_paths()) {
    for (int threads : {1, 2}) {
      ThreadPool pool(threads, ThreadPool::Sharing::Always);
      const KernelContext context{isa, true, &pool};
      std::vector<std::uint8_t> got(want.size());
      if (!onemodel::opt::tr::strided_copy(context, width, base, shape, strides, got.data())) return false;
      if (got != want) return false;
    }
  }
  return true;
}

// The lowest and highest element offsets of a view.
std::pair<std::int64_t, std::int64_t> reach_of(const std::vector<std::int32_t>& shape, const std::vector<std::int64_t>& strides) {
  std::int64_t low = 0, high = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (shape[d] == 0) continue;
    const std::int64_t reach = strides[d] * (shape[d] - 1);
    (reach < 0 ? low : high) += reach;
  }
  return {low, high};
}

// A view of 180000 elements (past the copy chunk of 16384): permuted, negated and broadcast
// strides, cut into chunks two threads share.
TEST(TransposeKernel, StridedCopyOfALargeViewOnTwoThreads) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("TransposeKernel.StridedCopyOfALargeViewOnTwoThreads");
  const std::vector<std::int32_t> shape = {3, 300, 4, 50};
  const std::vector<std::int64_t> strides = {-1, 600, 0, -3};  // a [300, 3, 50]-ish buffer read out of order
  const auto [low, high] = reach_of(shape, strides);
  for (std::size_t width : {1, 4, 8}) EXPECT_TRUE(strided_view_matches(shape, strides, width, low, high)) << width;
}

#if ONEMODEL_HAVE_RAPIDCHECK
// strided_copy over random views: strides of any sign, 0 (broadcast), gaps (slices). Not a
// thread test: rapidcheck's views are mostly one chunk (the test above shares one).
TEST(TransposeKernel, StridedCopyOfRandomViews) {
  EXPECT_TRUE(rc::check("strided copy", []() {
    const int rank = *rc::gen::inRange(0, 6);
    const auto shape = *rc::gen::container<std::vector<std::int32_t>>(
        static_cast<std::size_t>(rank), rc::gen::oneOf(rc::gen::just(1), rc::gen::inRange(0, 5), rc::gen::inRange(5, 60)));
    std::size_t n = 1;
    for (auto e : shape) n *= static_cast<std::size_t>(e);
    RC_PRE(n <= 200000u);
    const std::size_t width = *rc::gen::element<std::size_t>(1, 2, 4, 8);
    // Strides: a permutation of the row-major strides, sometimes scaled, negated or zeroed.
    std::vector<std::int64_t> strides(static_cast<std::size_t>(rank));
    std::int64_t s = 1;
    for (int d = rank - 1; d >= 0; --d) {
      strides[static_cast<std::size_t>(d)] = s;
      s *= shape[static_cast<std::size_t>(d)] == 0 ? 1 : shape[static_cast<std::size_t>(d)];
    }
    for (std::size_t i = strides.size(); i > 1; --i) std::swap(strides[i - 1], strides[*rc::gen::inRange<std::size_t>(0, i)]);
    for (auto& st : strides) st *= *rc::gen::element<std::int64_t>(1, 1, 1, 2, -1, 0);
    const auto [low, high] = reach_of(shape, strides);
    RC_ASSERT(strided_view_matches(shape, strides, width, low, high));
  }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(TransposeRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(onemodel::opt::tr::variants(), "x32_transpose");
  EXPECT_FALSE(transpose_variant_paths().empty());
}

}  // namespace
