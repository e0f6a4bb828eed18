// strided_copy (optimized/kernels/transpose/) on the views its contract allows and the transpose
// tests never make: "element (i0, ..., ik) at src + sum(i_d * src_strides[d]) (strides in elements,
// any sign, 0 for a broadcast axis)" (transpose.hpp): negative, zero, equal and non-unit innermost
// strides, rows longer than one copy chunk, every element size, every path, 1 and 2 threads,
// against a naive gather written from that sentence. Written for tools/mutate (issue 10): a walk
// that merged two axes of equal stride, or stepped the innermost axis by the wrong stride,
// passed every earlier test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/transpose/transpose.hpp"
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

struct View {
  std::vector<std::int32_t> shape;
  std::vector<std::int64_t> strides;
};

// The source buffer is large enough for every address the view reaches; `origin` is the element
// the view's index (0, ..., 0) maps to.
void check(const View& v, std::size_t width) {
  std::int64_t lo = 0, hi = 0;
  std::size_t n = 1;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    n *= static_cast<std::size_t>(v.shape[d]);
    if (v.shape[d] == 0) continue;
    const std::int64_t reach = (v.shape[d] - 1) * v.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const std::size_t elements = static_cast<std::size_t>(hi - lo + 1);
  std::vector<std::uint8_t> buffer(elements * width);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>((i * 151 + 3) ^ (i >> 7));
  const std::uint8_t* origin = buffer.data() + static_cast<std::size_t>(-lo) * width;
  std::vector<std::uint8_t> want(n * width);
  std::vector<std::int64_t> index(v.shape.size(), 0);
  for (std::size_t o = 0; o < n; ++o) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < v.shape.size(); ++d) at += index[d] * v.strides[d];
    std::memcpy(want.data() + o * width, origin + at * static_cast<std::int64_t>(width), width);
    for (std::size_t d = v.shape.size(); d-- > 0;) {
      if (++index[d] < v.shape[d]) break;
      index[d] = 0;
    }
  }
  for (Isa isa : transpose_variant_paths()) {
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      const KernelContext context{isa, true, &pool};
      std::vector<std::uint8_t> got(want.size() + 8, 0xEE);
      ASSERT_TRUE(onemodel::opt::tr::strided_copy(context, width, origin, v.shape, v.strides, got.data()));
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "byte " << i << " width " << width << " isa " << onemodel::opt::isa_name(isa)
                                   << " threads " << threads;
      }
      for (std::size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xEE) << "wrote past the end";
    }
  }
}

TEST(TransposeMutation, ViewsWithEqualZeroNegativeAndStridedInnerAxes) {
  const View views[] = {
      {{2, 3}, {3, 3}},             // equal strides: not one axis of 6
      {{4, 5, 3}, {7, 7, 1}},       // equal strides on the outer two
      {{3, 4}, {1, 1}},             // both axes unit stride (overlapping)
      {{5, 37}, {40, 2}},           // non-unit innermost stride
      {{3, 70}, {-71, 3}},          // negative outer stride, strided inner
      {{6, 33}, {33, -1}},          // reversed rows
      {{4, 3, 5}, {0, 5, 1}},       // broadcast axis
      {{4, 9}, {9, 0}},             // broadcast innermost
      {{2, 20000}, {1, 2}},         // rows longer than one copy chunk, strided
      {{2, 40000}, {40000, 1}},     // rows longer than one copy chunk, contiguous
      {{70, 90}, {1, 70}},          // a transpose through the tiles
      {{67, 3, 65}, {3, 1, 201}},   // tiles with ragged edges under an outer axis
  };
  for (const View& v : views) {
    for (std::size_t width : {1u, 2u, 4u, 8u}) check(v, width);
  }
}

}  // namespace
