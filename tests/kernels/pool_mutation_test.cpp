// MaxPool, AveragePool and the global pools of optimized/kernels/pool/ against naive loops written
// from spec/ops/products-conv.md section 8, bit for bit, on every path and at 1 and 2 threads.
// Written for tools/mutate (issue 10, mutation testing): before it the pool kernels had no kernel
// test of their own, only the differential operator test, which links the whole engine.
//
// The data mixes small integers (so windows have equal maxima), +0 and -0 (the first of equal taps
// wins, section 8.2), -inf, and NaN with several payloads (ignored by max unless every inside tap is
// NaN; a NaN average is stored as 0x7FC00000).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/kernels/float_bits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/pool/pool.hpp"
#include "optimized/kernels/pool/pool_max_rows.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/pool/pool_row.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::test::bits;
using onemodel::test::from_bits;

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;
namespace pool = onemodel::opt::pool;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> pool_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(pool::variants()); }

constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;

// A deterministic generator (the test must be replayable).
struct Lcg {
  std::uint64_t s;
  std::uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 33);
  }
  std::int64_t range(std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(next() % (hi - lo + 1)); }
};

float sample(Lcg& g, int nan_percent) {
  const std::uint32_t r = g.next() % 100;
  if (static_cast<int>(r) < nan_percent) return from_bits(0x7FC00000u | (g.next() & 0x3FFFFFu) | 1u);
  switch (g.next() % 12) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return -std::numeric_limits<float>::infinity();
    default: return static_cast<float>(static_cast<int>(g.next() % 7) - 3) * 0.75f;
  }
}

// Section 8.1-8.3 for one output position of one plane.
float naive_one(pool::PoolKind kind, const pool::Pool2dShape& s, const float* plane, std::int64_t oy,
                std::int64_t ox) {
  bool started = false, saw_nan = false;
  float best = 0.0f, sum = 0.0f;
  std::int64_t inside = 0;
  for (std::int64_t ky = 0; ky < s.h.kernel; ++ky) {
    const std::int64_t y = oy * s.h.stride - s.h.pad_before + ky * s.h.dilation;
    for (std::int64_t kx = 0; kx < s.w.kernel; ++kx) {
      const std::int64_t x = ox * s.w.stride - s.w.pad_before + kx * s.w.dilation;
      if (y < 0 || y >= s.h.in || x < 0 || x >= s.w.in) continue;  // padding never takes part
      const float v = plane[y * s.w.in + x];
      ++inside;
      sum = sum + v;
      if (v != v) {
        saw_nan = true;
      } else if (!started || v > best) {  // strictly greater replaces: the first of equals stays
        started = true;
        best = v;
      }
    }
  }
  if (kind == pool::PoolKind::Max) {
    if (started) return best;
    if (saw_nan) return from_bits(kCanonicalNan);
    return std::numeric_limits<float>::lowest();
  }
  std::int64_t divisor = inside;
  if (s.count_include_pad) {
    // Taps inside the input or its declared padding [-b, n + a), per axis, multiplied.
    auto declared = [](const pool::PoolAxis& a, std::int64_t o) {
      std::int64_t c = 0;
      for (std::int64_t k = 0; k < a.kernel; ++k) {
        const std::int64_t p = o * a.stride - a.pad_before + k * a.dilation;
        if (p >= -a.pad_before && p < a.in + a.pad_after) ++c;
      }
      return c;
    };
    divisor = declared(s.h, oy) * declared(s.w, ox);
  }
  const float avg = sum / static_cast<float>(divisor);
  return avg != avg ? from_bits(kCanonicalNan) : avg;
}

// Output size of section 3 (floor), plus the ceil_mode overhang when the extra window starts
// inside the input or its leading padding.
pool::PoolAxis make_axis(Lcg& g, bool ceil_mode) {
  pool::PoolAxis a;
  a.in = g.range(1, 23);
  a.kernel = g.range(1, 5);
  a.stride = g.range(1, 3);
  a.dilation = g.range(1, 2);
  a.pad_before = g.range(0, a.kernel - 1);
  a.pad_after = g.range(0, a.kernel - 1);
  const std::int64_t span = (a.kernel - 1) * a.dilation + 1;
  const std::int64_t room = a.in + a.pad_before + a.pad_after - span;
  if (room < 0) {
    a.pad_after += -room;
  }
  const std::int64_t full = a.in + a.pad_before + a.pad_after - span;
  a.out = full / a.stride + 1;
  if (ceil_mode && full % a.stride != 0 && a.out * a.stride - a.pad_before < a.in) ++a.out;
  return a;
}

void check_shape(const pool::Pool2dShape& s, pool::PoolKind kind, Lcg& g, int nan_percent) {
  const std::int64_t in_plane = s.h.in * s.w.in, out_plane = s.h.out * s.w.out;
  std::vector<float> x(static_cast<std::size_t>(s.planes * in_plane));
  for (float& v : x) v = sample(g, nan_percent);
  std::vector<float> want(static_cast<std::size_t>(s.planes * out_plane));
  for (std::int64_t p = 0; p < s.planes; ++p) {
    for (std::int64_t oy = 0; oy < s.h.out; ++oy) {
      for (std::int64_t ox = 0; ox < s.w.out; ++ox) {
        want[static_cast<std::size_t>(p * out_plane + oy * s.w.out + ox)] =
            naive_one(kind, s, x.data() + p * in_plane, oy, ox);
      }
    }
  }
  for (Isa isa : pool_variant_paths()) {
    for (int threads : {1, 2}) {
      ThreadPool tp(threads, onemodel::opt::two_threads::kAlways);
      for (bool exact : {false, true}) {
        const KernelContext context{isa, exact, &tp};
        std::vector<float> got(want.size() + 4, from_bits(0x12345678u));
        pool::pool_2d_f32(context, kind, s, x.data(), got.data());
        for (std::size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(bits(got[i]), bits(want[i]))
              << (kind == pool::PoolKind::Max ? "max" : "average") << " isa " << onemodel::opt::isa_name(isa)
              << " threads " << threads << " element " << i << " of planes " << s.planes << " h(in " << s.h.in
              << " k " << s.h.kernel << " s " << s.h.stride << " d " << s.h.dilation << " p " << s.h.pad_before
              << "/" << s.h.pad_after << " out " << s.h.out << ") w(in " << s.w.in << " k " << s.w.kernel << " s "
              << s.w.stride << " d " << s.w.dilation << " p " << s.w.pad_before << "/" << s.w.pad_after << " out "
              << s.w.out << ") include_pad " << s.count_include_pad;
        }
        for (std::size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(bits(got[i]), 0x12345678u) << "past the end";
      }
    }
  }
}

TEST(PoolMutation, RandomWindowsMatchTheDefinition) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.RandomWindowsMatchTheDefinition");
  Lcg g{20261201};
  for (int round = 0; round < 120; ++round) {
    pool::Pool2dShape s;
    s.planes = g.range(1, 5);
    const bool ceil_mode = round % 3 == 0;
    s.h = make_axis(g, ceil_mode);
    s.w = make_axis(g, ceil_mode);
    s.count_include_pad = round % 2 == 1;
    const int nan_percent = round % 4 == 0 ? 30 : 3;
    check_shape(s, pool::PoolKind::Max, g, nan_percent);
    check_shape(s, pool::PoolKind::Average, g, nan_percent);
  }
  // The generated shapes are small enough to be one chunk each; this one (8 planes of 23 x 23
  // outputs with 25 taps) is several, so the two-thread runs above are really shared once.
  pool::Pool2dShape split;
  split.planes = 8;
  for (pool::PoolAxis* a : {&split.h, &split.w}) {
    a->in = 23;
    a->kernel = 5;
    a->stride = 1;
    a->dilation = 1;
    a->pad_before = a->pad_after = 2;
    a->out = 23;
  }
  check_shape(split, pool::PoolKind::Max, g, 3);
  check_shape(split, pool::PoolKind::Average, g, 3);
}

// Wide rows (the vector row loop with its two-vector body, one-vector step and scalar tail),
// stride 2 (the row loop's extra right margin), and every plane count around the chunking.
TEST(PoolMutation, WideRowsAndManyPlanes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.WideRowsAndManyPlanes");
  Lcg g{7};
  for (std::int64_t in_w : {16, 17, 31, 32, 33, 47, 64, 70}) {
    for (std::int64_t stride : {1, 2}) {
      for (std::int64_t kernel : {2, 3}) {
        pool::Pool2dShape s;
        s.planes = 3;
        s.h = pool::PoolAxis{5, 0, 3, 1, 1, 1, 1};
        s.h.out = (5 + 2 - 3) / 1 + 1;
        s.w = pool::PoolAxis{in_w, 0, kernel, stride, 1, 1, 0};
        s.w.out = (in_w + 1 - kernel) / stride + 1;
        for (bool include : {false, true}) {
          s.count_include_pad = include;
          check_shape(s, pool::PoolKind::Max, g, 2);
          check_shape(s, pool::PoolKind::Average, g, 2);
        }
      }
    }
  }
  pool::Pool2dShape many;
  many.planes = 40;
  many.h = pool::PoolAxis{33, 33, 1, 1, 1, 0, 0};
  many.w = pool::PoolAxis{33, 33, 1, 1, 1, 0, 0};
  check_shape(many, pool::PoolKind::Average, g, 1);
}

// The max pools of convolutional networks (GoogLeNet's 3 x 3 stride-1 pools on 7 x 7 to 28 x 28
// maps, the 3 x 3 stride-2 stems with and without ceil_mode, VGG's 2 x 2 stride 2), and wide rows
// at strides 1 to 4 (several 16- or 8-column blocks of the AVX-512 and AVX2 direct kernels, their
// left-border expand loads, stride-2 pairs and stride-3/4 gathers; at stride 2 both walks of a
// plane, rows in address order and, past 64 tap columns a row (550 columns of a 2-wide window),
// block by block; 3-wide windows at strides 1 and 2 take the two-pass kernel, pool_max_rows.hpp): every path, 1 and 2
// threads, against the definition. The data has many equal taps (+0, -0 and small integers: the first in (h, w) order
// must win), -inf and NaN.
TEST(PoolMutation, ConvNetMaxPoolsAndWideRows) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.ConvNetMaxPoolsAndWideRows");
  Lcg g{31337};
  struct Case {
    std::int64_t planes, in, kernel, stride, pad_before, pad_after;
    bool ceil_mode;
  };
  const Case cases[] = {{9, 7, 3, 1, 1, 1, false},   {5, 14, 3, 1, 1, 1, false}, {3, 28, 3, 1, 1, 1, false},
                        {3, 112, 3, 2, 0, 0, true},  {3, 56, 3, 2, 1, 1, false}, {4, 28, 2, 2, 0, 0, false},
                        {2, 57, 3, 2, 0, 0, true},   {2, 70, 5, 3, 2, 2, false}, {2, 90, 3, 4, 1, 1, false},
                        {3, 33, 4, 1, 3, 0, false},  {2, 40, 2, 1, 1, 1, false}, {1, 690, 3, 2, 1, 1, false},
                        {1, 1100, 2, 2, 0, 0, false}};
  for (const Case& c : cases) {
    pool::Pool2dShape s;
    s.planes = c.planes;
    pool::PoolAxis a{c.in, 0, c.kernel, c.stride, 1, c.pad_before, c.pad_after};
    const std::int64_t full = c.in + c.pad_before + c.pad_after - c.kernel;
    a.out = full / c.stride + 1;
    if (c.ceil_mode && full % c.stride != 0 && a.out * c.stride - c.pad_before < c.in) ++a.out;
    s.h = a;
    s.w = a;
    for (int nan_percent : {0, 3, 40}) check_shape(s, pool::PoolKind::Max, g, nan_percent);
    s.h.dilation = 2;
    s.h.out = (c.in + c.pad_before + c.pad_after - (2 * (c.kernel - 1) + 1)) / c.stride + 1;
    if (s.h.out > 0) check_shape(s, pool::PoolKind::Max, g, 3);
  }
}

// The block edges of the vector max kernels (pool_max_rows_body.hpp, pool_max_direct_body.hpp),
// eight-lane blocks on AVX2 and sixteen on AVX-512: every input width from 1 to 40 (whole blocks,
// ragged last blocks and single-lane ones of both widths), 2-, 3- and 4-wide windows (the direct
// kernel, the two-pass one, the direct one) at width strides 1 to 3 (at stride 2 the spans whose
// element after the last tap lies past the row; 3 gathers), left pads 0 to 2 (loads starting
// inside a block: expanded at stride 1, shifted spans at stride 2; with a 2-wide window, windows
// wholly in the padding, the lowest float), right pads 0 and kernel - 1, with and without
// ceil_mode; 3-tall windows at height strides 1 and 2 (one to three window rows inside the input).
// Every path, 1 and 2 threads, against the definition; a third of the shapes NaN-heavy.
TEST(PoolMutation, VectorMaxBlockEdges) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.VectorMaxBlockEdges");
  Lcg g{8016};
  auto axis = [](std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad_before,
                 std::int64_t pad_after, bool ceil_mode) {
    pool::PoolAxis a{in, 0, kernel, stride, 1, pad_before, pad_after};
    const std::int64_t full = in + pad_before + pad_after - kernel;
    a.out = full < 0 ? 0 : full / stride + 1;
    if (full >= 0 && ceil_mode && full % stride != 0 && a.out * stride - pad_before < in) ++a.out;
    return a;
  };
  int round = 0;
  for (std::int64_t in_w = 1; in_w <= 40; ++in_w) {
    for (std::int64_t kernel : {2, 3, 4}) {
      for (std::int64_t stride : {1, 2, 3}) {
        for (std::int64_t pad_before : {0, 1, 2}) {
          ++round;
          const bool ceil_mode = round % 2 == 0;
          pool::Pool2dShape s;
          s.planes = 1 + round % 3;
          s.h = axis(6, 3, 1 + round % 2, 1, 1, ceil_mode);
          s.w = axis(in_w, kernel, stride, pad_before, round % 4 < 2 ? 0 : kernel - 1, ceil_mode);
          if (s.w.out <= 0) continue;
          check_shape(s, pool::PoolKind::Max, g, round % 3 == 0 ? 40 : 3);
        }
      }
    }
  }
  // The shapes above are one chunk each; these (8 planes of about 37 x 40 outputs) are several, so
  // the two-thread runs are really shared, for both kernels.
  for (std::int64_t kernel : {2, 3}) {
    pool::Pool2dShape s;
    s.planes = 8;
    s.h = axis(40, kernel, 1, 1, 1, false);
    s.w = axis(37, kernel, 1, 1, 1, false);
    check_shape(s, pool::PoolKind::Max, g, 3);
  }
}

// Which max pools take the two-pass kernel of the AVX-512 and AVX2 paths (pool_max_rows.hpp): 3-wide windows at width
// stride 1 or 2 without dilation; the cases of ConvNetMaxPoolsAndWideRows above run it (3 x 3 at
// strides 1 and 2, ceil_mode) and the direct kernel (2-, 4- and 5-wide windows, stride 4, dilation).
TEST(PoolMutation, RowsKernelSelection) {
  pool::Pool2dShape s;
  s.planes = 2;
  s.h = pool::PoolAxis{56, 28, 3, 2, 1, 1, 1};
  s.w = s.h;
  EXPECT_TRUE(pool::rows_max_takes(s));
  pool::Pool2dShape one = s;
  one.w = pool::PoolAxis{28, 28, 3, 1, 1, 1, 1};
  EXPECT_TRUE(pool::rows_max_takes(one));
  pool::Pool2dShape other = s;
  other.w.kernel = 2;  // VGG's 2 x 2: the direct kernel
  EXPECT_FALSE(pool::rows_max_takes(other));
  other = s;
  other.w.stride = 3;
  EXPECT_FALSE(pool::rows_max_takes(other));
  other = s;
  other.h.dilation = 2;
  EXPECT_FALSE(pool::rows_max_takes(other));
  other = s;
  other.w.pad_before = 3;
  EXPECT_FALSE(pool::rows_max_takes(other));
  // A tall, thin input whose right padding makes the output 2^20 wide: 2^20 rows of maxima of that
  // width would be 2^40 floats, so the direct kernel takes it.
  other = s;
  other.h = pool::PoolAxis{1 << 20, 1 << 19, 3, 2, 1, 1, 1};
  other.w = pool::PoolAxis{1, 1 << 20, 3, 1, 1, 1, (1 << 20) + 1};
  EXPECT_FALSE(pool::rows_max_takes(other));
  other.h = pool::PoolAxis{4, 2, 3, 2, 1, 1, 1};  // the same width over 4 rows: 2^22 floats, taken
  EXPECT_TRUE(pool::rows_max_takes(other));
}

// Section 8.4: the plane's sum in index order from +0 divided by its size (NaN canonical); the
// max from the lowest finite float, replaced by strictly greater values.
TEST(PoolMutation, GlobalPoolsMatchTheDefinition) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.GlobalPoolsMatchTheDefinition");
  Lcg g{99};
  for (std::size_t planes : {1u, 7u, 8u, 9u, 17u, 100u}) {
    for (std::size_t size : {1u, 5u, 49u, 1000u}) {
      std::vector<float> x(planes * size);
      for (float& v : x) v = sample(g, planes == 7 ? 20 : 1);
      std::vector<float> want_avg(planes), want_max(planes);
      for (std::size_t p = 0; p < planes; ++p) {
        float sum = 0.0f, best = std::numeric_limits<float>::lowest();
        for (std::size_t i = 0; i < size; ++i) {
          const float v = x[p * size + i];
          sum = sum + v;
          if (v > best) best = v;
        }
        const float avg = sum / static_cast<float>(size);
        want_avg[p] = avg != avg ? from_bits(kCanonicalNan) : avg;
        want_max[p] = best;
      }
      for (Isa isa : pool_variant_paths()) {
        for (int threads : {1, 2}) {
          ThreadPool tp(threads, onemodel::opt::two_threads::kAlways);
          const KernelContext context{isa, true, &tp};
          std::vector<float> got(planes + 1, 7.0f);
          pool::global_pool_f32(context, pool::PoolKind::Average, x.data(), got.data(), planes, size);
          for (std::size_t p = 0; p < planes; ++p) ASSERT_EQ(bits(got[p]), bits(want_avg[p])) << "avg plane " << p;
          ASSERT_EQ(got[planes], 7.0f);
          pool::global_pool_f32(context, pool::PoolKind::Max, x.data(), got.data(), planes, size);
          for (std::size_t p = 0; p < planes; ++p) ASSERT_EQ(bits(got[p]), bits(want_max[p])) << "max plane " << p;
          ASSERT_EQ(got[planes], 7.0f);
        }
      }
    }
  }
}

// Section 8.4's order is the index order: with values of many magnitudes the sum's roundings
// depend on it, so any other order (the AVX-512 path folds transposed groups of 16 elements) shows
// up in the bits. Plane counts around the 16 lanes, sizes around the 16-element groups, and planes
// above the pool's chunk work (32768), which the AVX-512 path still takes sixteen to a chunk.
TEST(PoolMutation, GlobalAverageKeepsTheIndexOrder) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("PoolMutation.GlobalAverageKeepsTheIndexOrder");
  Lcg g{4242};
  for (std::size_t planes : {1u, 15u, 16u, 17u, 33u}) {
    for (std::size_t size : {16u, 31u, 49u, 196u, 1000u, 33001u}) {
      std::vector<float> x(planes * size);
      for (float& v : x) {
        const float unit = static_cast<float>(static_cast<int>(g.next() % 2001) - 1000) / 1000.0f;
        v = std::ldexp(unit, static_cast<int>(g.next() % 41) - 20);
      }
      std::vector<float> want(planes);
      for (std::size_t p = 0; p < planes; ++p) {
        float sum = 0.0f;
        for (std::size_t i = 0; i < size; ++i) sum = sum + x[p * size + i];
        want[p] = sum / static_cast<float>(size);
      }
      for (Isa isa : pool_variant_paths()) {
        for (int threads : {1, 2}) {
          ThreadPool tp(threads, onemodel::opt::two_threads::kAlways);
          const KernelContext context{isa, false, &tp};
          std::vector<float> got(planes + 1, 7.0f);
          pool::global_pool_f32(context, pool::PoolKind::Average, x.data(), got.data(), planes, size);
          for (std::size_t p = 0; p < planes; ++p) {
            ASSERT_EQ(bits(got[p]), bits(want[p])) << "isa " << onemodel::opt::isa_name(isa) << " planes " << planes
                                                   << " size " << size << " plane " << p;
          }
          ASSERT_EQ(got[planes], 7.0f);
        }
      }
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(PoolRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(pool::variants(), "f32_pool");
  EXPECT_FALSE(pool_variant_paths().empty());
}

}  // namespace
