// A packed once (PackedA, gemm_f32_packed_a) against A packed by the tiles (gemm_f32): packing
// is a copy into the layout the tiles already use (kernels-gemm.md, "Structure" step 2), so the
// results must be the same bits in exact and fast mode, on every path, at 1 and 2 threads, for
// every size 0..70 in each dimension, random strides (transposed and spread operands), special
// values and several tiles and k-blocks. Also: the packed layout itself, element by element
// against the definition (which covers each path's fixed-MR packer, including its SIMD transposes),
// refusal of another path's or another shape's PackedA, and the convolution with packed weights
// against the convolution reading W.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_path.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

// Every listed variant of the product that this machine runs (the registry, gemm_path.hpp).
std::vector<Isa> gemm_variant_paths() { return kernel_tests::variant_paths(gemm::variants()); }

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
float from_bits(std::uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Random values with a share of specials: NaNs with payloads (signalling included), infinities,
// signed zeros, subnormals, huge values.
float next_value(std::mt19937& rng, double special_rate) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (u(rng) < special_rate) {
    switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
      case 0: return std::numeric_limits<float>::quiet_NaN();
      case 1: return from_bits(0xFFC00001u);
      case 2: return from_bits(0x7F800001u);
      case 3: return std::numeric_limits<float>::infinity();
      case 4: return -std::numeric_limits<float>::infinity();
      case 5: return -0.0f;
      case 6: return 0.0f;
      case 7: return from_bits(std::uniform_int_distribution<std::uint32_t>(1, 0x007FFFFFu)(rng));
      default: return (u(rng) < 0.5 ? 1.0f : -1.0f) * 3.0e38f;
    }
  }
  return static_cast<float>(u(rng) * 2.0 - 1.0);
}

// A rows x cols matrix inside a larger buffer, in one of three layouts: row-major with a padded
// row stride, transposed (columns contiguous), or spread (column stride 2 or 3).
struct Strided {
  std::vector<float> storage;
  MatrixView view;
  std::ptrdiff_t index(std::size_t r, std::size_t c) const {
    return (view.data - storage.data()) + static_cast<std::ptrdiff_t>(r) * view.row_stride +
           static_cast<std::ptrdiff_t>(c) * view.col_stride;
  }
};

Strided make_strided(std::size_t rows, std::size_t cols, std::mt19937& rng, double special_rate) {
  Strided m;
  std::uniform_int_distribution<int> small(0, 4);
  const std::ptrdiff_t offset = small(rng), pad = small(rng);
  const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(rows), c = static_cast<std::ptrdiff_t>(cols);
  std::ptrdiff_t rs = 0, cs = 1;
  switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
    case 0: rs = c + pad; cs = 1; break;
    case 1: rs = 1; cs = r + pad; break;
    default: cs = 2 + small(rng) % 2; rs = c * cs + pad; break;
  }
  const std::ptrdiff_t extent = offset + (r > 0 ? (r - 1) * rs : 0) + (c > 0 ? (c - 1) * cs : 0) + 1;
  m.storage.resize(static_cast<std::size_t>(extent));
  for (float& v : m.storage) v = next_value(rng, special_rate);
  m.view = MatrixView{m.storage.data() + offset, rs, cs};
  return m;
}

constexpr std::uint32_t kSentinel = 0x7F8DEAD1u;

// C with a padded row stride and sentinels after it; the whole buffer is compared, so stray
// writes differ too.
struct OutBuffer {
  std::ptrdiff_t ldc;
  std::vector<float> storage;
  OutBuffer(std::size_t m, std::size_t n, std::size_t pad)
      : ldc(static_cast<std::ptrdiff_t>(n + pad)), storage(m * (n + pad) + 8, from_bits(kSentinel)) {}
  float* data() { return storage.data() + 4; }
};

std::string first_difference(const OutBuffer& got, const OutBuffer& want) {
  for (std::size_t i = 0; i < got.storage.size(); ++i) {
    if (bits_of(got.storage[i]) != bits_of(want.storage[i])) {
      char text[120];
      std::snprintf(text, sizeof text, "buffer index %zu: got 0x%08X, want 0x%08X", i, bits_of(got.storage[i]),
                    bits_of(want.storage[i]));
      return text;
    }
  }
  return {};
}

std::string describe(Isa isa, bool exact, int threads, std::size_t m, std::size_t n, std::size_t k) {
  return std::string(isa_name(isa)) + (exact ? " exact" : " fast") + " threads=" + std::to_string(threads) +
         " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
}

// gemm_f32_packed_a against gemm_f32 on the same inputs, both modes.
void check_same_bits(Isa isa, ThreadPool* pool, std::size_t m, std::size_t n, std::size_t k, std::mt19937& rng,
                     double special_rate) {
  const Strided a = make_strided(m, k, rng, special_rate);
  const Strided b = make_strided(k, n, rng, special_rate);
  const PackedA packed = pack_a_f32(isa, m, k, a.view);
  ASSERT_EQ(packed.m(), m);
  ASSERT_EQ(packed.k(), k);
  const std::size_t pad = std::uniform_int_distribution<std::size_t>(0, 3)(rng);
  const int threads = pool == nullptr ? 1 : pool->threads();
  for (const bool exact : {true, false}) {
    const KernelContext context{isa, exact, pool};
    OutBuffer want(m, n, pad), got(m, n, pad);
    gemm_f32(context, m, n, k, a.view, b.view, want.data(), want.ldc);
    gemm_f32_packed_a(context, m, n, k, packed, b.view, got.data(), got.ldc);
    const std::string diff = first_difference(got, want);
    ASSERT_TRUE(diff.empty()) << describe(isa, exact, threads, m, n, k) << ": " << diff;
  }
}

TEST(GemmPackedA, SameBitsEachDimensionSwept0To70OnEveryPathOneAndTwoThreads) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmPackedA.SameBitsEachDimensionSwept0To70OnEveryPathOneAndTwoThreads");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  for (const Isa isa : gemm_variant_paths()) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
      std::mt19937 rng(4321 + static_cast<unsigned>(isa));
      std::uniform_int_distribution<std::size_t> other(0, 70);
      for (int dim = 0; dim < 3; ++dim) {
        for (std::size_t size = 0; size <= 70; ++size) {
          std::size_t s[3] = {other(rng), other(rng), other(rng)};
          s[dim] = size;
          check_same_bits(isa, pool, s[0], s[1], s[2], rng, 0.03);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(GemmPackedA, SameBitsWithManySpecialValues) {
  for (const Isa isa : gemm_variant_paths()) {
    std::mt19937 rng(77 + static_cast<unsigned>(isa));
    std::uniform_int_distribution<std::size_t> size(0, 70);
    for (int trial = 0; trial < 60; ++trial) {
      check_same_bits(isa, nullptr, size(rng), size(rng), size(rng), rng, 0.3);
      if (HasFatalFailure()) return;
    }
  }
}

// Several tile rows and columns and k-blocks (of 256, or 512 on AVX-512), a ragged last tile row
// (so the packed tile rows have different heights), including ResNet-50's late-layer shapes (N = 49 and 196) and a
// k = 16 product, whose tiles are wider than the path's NC, and a product large enough for at least
// 16 tiles (512 x 49 x 1400: bands of 24 rows on AVX-512).
TEST(GemmPackedA, SameBitsMultipleTilesAndKBlocksOnOneAndTwoThreads) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmPackedA.SameBitsMultipleTilesAndKBlocksOnOneAndTwoThreads");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  const std::size_t shapes[][3] = {{200, 300, 600}, {97, 129, 257}, {193, 250, 513}, {130, 17, 1030},
                                   {5, 400, 300},   {256, 49, 2304}, {131, 196, 1152}, {100, 1500, 16},
                                   {512, 49, 1400}};
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        std::mt19937 rng(11 + static_cast<unsigned>(s[0] * 31 + s[2]));
        check_same_bits(isa, pool, s[0], s[1], s[2], rng, 0.01);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The layout, from its definition (gemm_pack.hpp, packed_a_offset): k-blocks of the path's KC (256;
// 512 on AVX-512, so k = 1100 has three there) one after the other, each holding all ceil(m / MR) strips of MR rows, strip s at s * MR * kc, element (p, r) of
// a strip at p * MR + r, rows past m +0 (not -0). Checked bit for bit, so each path's packer (SIMD
// transposes on x86-64) is checked as a copy: NaN payloads, signalling NaNs and signs preserved.
TEST(GemmPackedA, LayoutIsTheTilesLayoutOnEveryPath) {
  const std::size_t shapes[][2] = {{1, 1}, {7, 5}, {13, 259}, {97, 300}, {200, 70}, {25, 513}, {300, 520}, {40, 1100}};
  for (const Isa isa : gemm_variant_paths()) {
    const gemm::Path& path = gemm::path_for(isa);
    std::mt19937 rng(5 + static_cast<unsigned>(isa));
    for (const auto& shape : shapes) {
      const std::size_t m = shape[0], k = shape[1];
      const std::size_t padded = (m + path.mr - 1) / path.mr * path.mr;
      for (int layout = 0; layout < 3; ++layout) {
        const Strided a = make_strided(m, k, rng, 0.2);
        const PackedA packed = pack_a_f32(isa, m, k, a.view);
        ASSERT_EQ(packed.isa(), path.isa);
        ASSERT_EQ(packed.size(), padded * k);
        for (std::size_t p0 = 0; p0 < k; p0 += path.kc) {
          const std::size_t kc = std::min(path.kc, k - p0);
          const float* block = packed.data() + p0 * padded;
          for (std::size_t r = 0; r < padded; ++r) {
            for (std::size_t p = 0; p < kc; ++p) {
              const float got = block[(r / path.mr) * path.mr * kc + p * path.mr + r % path.mr];
              const std::uint32_t want =
                  r < m ? bits_of(a.storage[static_cast<std::size_t>(a.index(r, p0 + p))]) : 0u;
              ASSERT_EQ(bits_of(got), want) << isa_name(isa) << " m=" << m << " k=" << k << " row " << r << " k "
                                            << p0 + p;
            }
          }
        }
      }
    }
  }
}

TEST(GemmPackedA, RefusesAnotherPathOrShape) {
  const std::vector<float> a(4, 1.0f), b(4, 1.0f);
  std::vector<float> c(4);
  const auto isas = available_isas();
  const PackedA packed = pack_a_f32(isas.back(), 2, 2, MatrixView{a.data(), 2, 1});
  const KernelContext same{isas.back(), true, nullptr};
  EXPECT_THROW(gemm_f32_packed_a(same, 2, 2, 3, packed, MatrixView{b.data(), 2, 1}, c.data(), 2),
               std::invalid_argument);
  EXPECT_THROW(gemm_f32_packed_a(same, 1, 2, 2, packed, MatrixView{b.data(), 2, 1}, c.data(), 2),
               std::invalid_argument);
  if (isas.size() < 2) GTEST_SKIP() << "only one path on this machine";
  EXPECT_THROW(gemm_f32_packed_a(KernelContext{isas.front(), true, nullptr}, 2, 2, 2, packed,
                                 MatrixView{b.data(), 2, 1}, c.data(), 2),
               std::invalid_argument);
}

// conv2d_f32 with conv2d_pack_weights against conv2d_f32 reading W: im2col (padded, strided,
// grouped) and the 1x1 stride-1 case that reads the input directly as B, with a bias.
TEST(GemmPackedA, ConvolutionWithPackedWeightsSameBits) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmPackedA.ConvolutionWithPackedWeightsSameBits");
  struct Case {
    std::size_t cin, cout, groups, h, w, kh, kw, stride, pad;
  };
  // Then two 1x1 products of more than 96 and at most 264 filters, whose input is read in place in
  // one band of all the rows (gemm.cpp, in_place_band_shape), with a ragged last strip; the last
  // two read their packed weights ahead in fast mode (Path::fast_streamed: at most 256 columns, at
  // least 1024 rows of k), the second over three k-blocks of the AVX-512 path, both with the bias
  // in the stores.
  const Case cases[] = {{8, 16, 1, 9, 7, 3, 3, 1, 1},     {12, 18, 3, 10, 10, 3, 3, 2, 1},
                        {32, 20, 1, 7, 7, 1, 1, 1, 0},    {6, 100, 2, 5, 6, 1, 1, 1, 0},
                        {16, 130, 1, 14, 14, 3, 3, 1, 1}, {40, 130, 1, 20, 19, 1, 1, 1, 0},
                        {24, 264, 1, 12, 23, 1, 1, 1, 0}, {128, 64, 1, 14, 14, 3, 3, 1, 1},
                        {160, 40, 1, 7, 7, 3, 3, 1, 1}};
  ThreadPool two(2, ThreadPool::Sharing::Always);
  for (const Isa isa : gemm_variant_paths()) {
    std::mt19937 rng(3 + static_cast<unsigned>(isa));
    for (const Case& cs : cases) {
      Conv2dShape s;
      s.batch = 2;
      s.in_channels = cs.cin;
      s.out_channels = cs.cout;
      s.groups = cs.groups;
      s.in_h = cs.h;
      s.in_w = cs.w;
      s.kernel_h = cs.kh;
      s.kernel_w = cs.kw;
      s.stride_h = s.stride_w = cs.stride;
      s.pad_top = s.pad_left = cs.pad;
      s.out_h = (cs.h + 2 * cs.pad - cs.kh) / cs.stride + 1;
      s.out_w = (cs.w + 2 * cs.pad - cs.kw) / cs.stride + 1;
      std::vector<float> x(s.batch * s.in_channels * s.in_plane()), w(s.out_channels * s.in_per_group() * s.taps()),
          bias(s.out_channels);
      for (float& v : x) v = next_value(rng, 0.02);
      for (float& v : w) v = next_value(rng, 0.02);
      for (float& v : bias) v = next_value(rng, 0.0);
      const std::vector<PackedA> packed = conv2d_pack_weights(isa, s, w.data());
      ASSERT_EQ(packed.size(), s.groups);
      std::vector<float> work(conv2d_workspace_floats(s) + 1);
      const std::size_t out = s.batch * s.out_channels * s.out_plane();
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        for (const bool exact : {true, false}) {
          const KernelContext context{isa, exact, pool};
          std::vector<float> want(out), got(out);
          conv2d_f32(context, s, x.data(), w.data(), bias.data(), want.data(), work.data());
          conv2d_f32(context, s, x.data(), nullptr, bias.data(), got.data(), work.data(), nullptr, packed.data());
          for (std::size_t i = 0; i < out; ++i) {
            ASSERT_EQ(bits_of(got[i]), bits_of(want[i]))
                << isa_name(isa) << (exact ? " exact" : " fast") << " cin=" << cs.cin << " cout=" << cs.cout
                << " groups=" << cs.groups << " k=" << cs.kh << " output " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::opt
