// Kernel tests of fused attention (optimized/kernels/attention) against the naive definition of
// kernels-attention.md ("The exact definition", written out one row at a time in
// attn_naive_definitions.hpp): exact mode gives the same bits on every available path and at 1 and
// 2 threads, including fully masked rows, NaN and +inf scores and a fully masked first block; fast
// mode stays within 4e-6 of a double-precision softmax for q, k ~ N(0, 1.5^2) ("Accuracy"), gives
// the same bits at 1 and 2 threads, with head dims 32, 64, 80 and ones that are no multiple of the
// lane width, per-row and broadcast masks (over heads and rows, and over keys) and fully masked rows.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/attention/attention.hpp"
#include "optimized/kernels/attention/attention_variants.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using namespace onemodel::opt;
using attn_naive::bits;

// One path per listed variant this machine runs (docs/design.md, "Kernel registry").
std::vector<Isa> attention_variant_paths() { return kernel_tests::variant_paths(attention_variants()); }

struct Case {
  std::size_t batch = 1, heads = 1, kv_heads = 1, q_len = 1, kv_len = 1, d = 2, dv = 2;
  bool with_mask = false;
  bool mask_broadcast_rows = false;  // mask (batch, 1, 1, kv_len): strides 0 over heads and rows
  float scale = 0.125f;
  std::vector<float> q, k, v, mask;
};

Case make_case(std::mt19937& rng, std::size_t batch, std::size_t heads, std::size_t kv_heads, std::size_t q_len,
               std::size_t kv_len, std::size_t d, std::size_t dv, bool mask, float sigma = 1.5f) {
  Case c;
  c.batch = batch;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.q_len = q_len;
  c.kv_len = kv_len;
  c.d = d;
  c.dv = dv;
  c.with_mask = mask;
  c.scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::normal_distribution<float> normal(0.0f, sigma);
  c.q.resize(batch * heads * q_len * d);
  c.k.resize(batch * kv_heads * kv_len * d);
  c.v.resize(batch * kv_heads * kv_len * dv);
  for (float& x : c.q) x = normal(rng);
  for (float& x : c.k) x = normal(rng);
  for (float& x : c.v) x = normal(rng);
  if (mask) {
    c.mask.resize(batch * heads * q_len * kv_len);
    std::uniform_int_distribution<int> pick(0, 5);
    for (float& x : c.mask) x = pick(rng) == 0 ? -INFINITY : normal(rng);
  }
  return c;
}

AttentionArgs args_of(const Case& c, float* out) {
  AttentionArgs a;
  a.q = c.q.data();
  a.k = c.k.data();
  a.v = c.v.data();
  a.mask = c.with_mask ? c.mask.data() : nullptr;
  a.out = out;
  a.batch = c.batch;
  a.heads = c.heads;
  a.q_len = c.q_len;
  a.kv_len = c.kv_len;
  a.d = c.d;
  a.dv = c.dv;
  a.kv_group = c.heads / c.kv_heads;
  const auto p = [](std::size_t v) { return static_cast<std::ptrdiff_t>(v); };
  a.q_strides = {p(c.heads * c.q_len * c.d), p(c.q_len * c.d), p(c.d)};
  a.k_strides = {p(c.kv_heads * c.kv_len * c.d), p(c.kv_len * c.d), p(c.d)};
  a.v_strides = {p(c.kv_heads * c.kv_len * c.dv), p(c.kv_len * c.dv), p(c.dv)};
  if (c.mask_broadcast_rows) a.mask_strides = {p(c.kv_len), 0, 0};
  else a.mask_strides = {p(c.heads * c.q_len * c.kv_len), p(c.q_len * c.kv_len), p(c.kv_len)};
  a.out_strides = {p(c.heads * c.q_len * c.dv), p(c.q_len * c.dv), p(c.dv)};
  a.scale = c.scale;
  return a;
}

// Row pointers of the naive definition for (b, h, i).
struct RowView {
  const float* q;
  std::vector<const float*> k, v;
  const float* mask;
};
RowView row_view(const Case& c, std::size_t b, std::size_t h, std::size_t i) {
  RowView r;
  const std::size_t kvh = h / (c.heads / c.kv_heads);
  r.q = c.q.data() + ((b * c.heads + h) * c.q_len + i) * c.d;
  for (std::size_t j = 0; j < c.kv_len; ++j) {
    r.k.push_back(c.k.data() + ((b * c.kv_heads + kvh) * c.kv_len + j) * c.d);
    r.v.push_back(c.v.data() + ((b * c.kv_heads + kvh) * c.kv_len + j) * c.dv);
  }
  r.mask = nullptr;
  if (c.with_mask) {
    r.mask = c.mask_broadcast_rows ? c.mask.data() + b * c.kv_len
                                   : c.mask.data() + ((b * c.heads + h) * c.q_len + i) * c.kv_len;
  }
  return r;
}

std::vector<float> naive_exact(const Case& c) {
  std::vector<float> out(c.batch * c.heads * c.q_len * c.dv);
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t h = 0; h < c.heads; ++h)
      for (std::size_t i = 0; i < c.q_len; ++i) {
        const RowView r = row_view(c, b, h, i);
        const std::vector<float> y = attn_naive::attention_row(r.q, r.k, r.v, r.mask, c.d, c.dv, c.scale);
        std::copy(y.begin(), y.end(), out.begin() + static_cast<std::ptrdiff_t>(((b * c.heads + h) * c.q_len + i) * c.dv));
      }
  return out;
}

void check_exact(const Case& c) {
  const std::vector<float> want = naive_exact(c);
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (Isa isa : attention_variant_paths()) {
    for (int threads : {1, 2}) {
      std::vector<float> out(want.size(), 55.0f);
      attention_f32(KernelContext{isa, true, threads == 2 ? &pool : nullptr}, args_of(c, out.data()));
      for (std::size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(bits(out[i]), bits(want[i]))
            << isa_name(isa) << " threads " << threads << " q_len " << c.q_len << " kv_len " << c.kv_len << " d "
            << c.d << " dv " << c.dv << " at " << i << " got " << out[i] << " want " << want[i];
      }
    }
  }
}

TEST(AttentionKernelTest, ExactMatchesTheDefinition) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.ExactMatchesTheDefinition");
  std::mt19937 rng(21);
  check_exact(make_case(rng, 1, 2, 2, 5, 7, 2, 2, false));
  check_exact(make_case(rng, 2, 3, 1, 33, 65, 8, 6, true));
  check_exact(make_case(rng, 1, 4, 2, 70, 130, 64, 64, true));
  check_exact(make_case(rng, 1, 2, 2, 32, 64, 32, 32, false));
  check_exact(make_case(rng, 1, 1, 1, 3, 200, 10, 13, true));
  check_exact(make_case(rng, 1, 1, 1, 1, 1, 2, 1, false));
  // Large enough for the pool to wake a worker (over 80 microseconds of estimated work).
  check_exact(make_case(rng, 1, 4, 4, 100, 200, 64, 64, true));
}

TEST(AttentionKernelTest, BroadcastMask) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.BroadcastMask");
  std::mt19937 rng(22);
  Case c = make_case(rng, 2, 3, 3, 9, 70, 4, 4, true);
  c.mask_broadcast_rows = true;
  c.mask.resize(c.batch * c.kv_len);
  check_exact(c);
}

// Not a thread test: one head of six rows is one chunk.
TEST(AttentionKernelTest, SpecialRows) {
  std::mt19937 rng(23);
  Case c = make_case(rng, 1, 1, 1, 6, 150, 4, 5, true);
  for (std::size_t j = 0; j < c.kv_len; ++j) {
    c.mask[0 * c.kv_len + j] = -INFINITY;                   // row 0 fully masked: NaN
    c.mask[1 * c.kv_len + j] = j < 64 ? -INFINITY : 0.0f;   // first block masked, then visible
    c.mask[2 * c.kv_len + j] = j == 100 ? NAN : 0.0f;       // a NaN score: NaN row
    c.mask[3 * c.kv_len + j] = j == 3 ? INFINITY : 0.0f;    // a +inf score: NaN row
    c.mask[4 * c.kv_len + j] = j < 149 ? -INFINITY : -0.0f;  // only the last key visible
  }
  check_exact(c);
  std::vector<float> out(c.q_len * c.dv);
  attention_f32(KernelContext{available_isas().back(), true, nullptr}, args_of(c, out.data()));
  for (std::size_t x = 0; x < c.dv; ++x) {
    EXPECT_EQ(bits(out[0 * c.dv + x]), 0x7FC00000u);
    EXPECT_FALSE(std::isnan(out[1 * c.dv + x]));
    EXPECT_EQ(bits(out[2 * c.dv + x]), 0x7FC00000u);
    EXPECT_EQ(bits(out[3 * c.dv + x]), 0x7FC00000u);
    EXPECT_EQ(out[4 * c.dv + x], c.v[149 * c.dv + x]);
  }
  // The same in fast mode: the NaN rows stay NaN.
  for (Isa isa : attention_variant_paths()) {
    attention_f32(KernelContext{isa, false, nullptr}, args_of(c, out.data()));
    for (std::size_t x = 0; x < c.dv; ++x) {
      EXPECT_EQ(bits(out[0 * c.dv + x]), 0x7FC00000u) << isa_name(isa);
      EXPECT_EQ(bits(out[2 * c.dv + x]), 0x7FC00000u) << isa_name(isa);
      EXPECT_EQ(bits(out[3 * c.dv + x]), 0x7FC00000u) << isa_name(isa);
    }
  }
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(AttentionKernelTest, RandomShapesExact) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.RandomShapesExact");
  EXPECT_TRUE(rc::check("attention exact equals the definition",
            [](std::uint8_t heads_in, std::uint8_t q_in, std::uint16_t kv_in, std::uint8_t d_in, std::uint32_t seed) {
              std::mt19937 rng(seed);
              const std::size_t kv_heads = 1 + heads_in % 2;
              const std::size_t heads = kv_heads * (1 + heads_in / 2 % 2);
              check_exact(make_case(rng, 1 + seed % 2, heads, kv_heads, 1 + q_in % 40, 1 + kv_in % 150,
                                    2 * (1 + d_in % 20), 1 + d_in / 20 % 24, seed % 3 != 0));
            }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

TEST(AttentionKernelTest, FastIsWithinTheSpecBound) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.FastIsWithinTheSpecBound");
  std::mt19937 rng(24);
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (const auto& shape : {std::vector<std::size_t>{2, 37, 129, 64}, {3, 128, 128, 32}, {1, 5, 1500, 64}}) {
    const Case c = make_case(rng, 1, shape[0], shape[0], shape[1], shape[2], shape[3], shape[3], false);
    for (Isa isa : attention_variant_paths()) {
      std::vector<float> out1(c.heads * c.q_len * c.dv), out2(out1.size()), exact(out1.size());
      attention_f32(KernelContext{isa, false, nullptr}, args_of(c, out1.data()));
      attention_f32(KernelContext{isa, false, &pool}, args_of(c, out2.data()));
      attention_f32(KernelContext{isa, true, nullptr}, args_of(c, exact.data()));
      ASSERT_EQ(0, std::memcmp(out1.data(), out2.data(), out1.size() * 4)) << isa_name(isa);
      double worst_fast = 0, worst_exact = 0;
      for (std::size_t h = 0; h < c.heads; ++h)
        for (std::size_t i = 0; i < c.q_len; ++i) {
          const RowView r = row_view(c, 0, h, i);
          const std::vector<double> want = attn_naive::attention_row_double(r.q, r.k, r.v, r.mask, c.d, c.dv, c.scale);
          for (std::size_t x = 0; x < c.dv; ++x) {
            const std::size_t at = (h * c.q_len + i) * c.dv + x;
            worst_fast = std::max(worst_fast, std::fabs(out1[at] - want[x]));
            worst_exact = std::max(worst_exact, std::fabs(exact[at] - want[x]));
          }
        }
      // kernels-attention.md, "Accuracy": tests use a bound of 4e-6.
      EXPECT_LE(worst_fast, 4e-6) << isa_name(isa) << " kv " << c.kv_len;
      EXPECT_LE(worst_exact, 4e-6) << isa_name(isa) << " kv " << c.kv_len;
    }
  }
}

// Fast mode on every path against the double reference of `full` (whose mask, if any, is expanded
// to one row per (b, h, i)); `args` may read a broadcast form of that mask. Rows the reference gives
// NaN (fully masked) must be canonical NaN, or zeros with divide_empty_rows_by_one.
void check_fast(const Case& full, AttentionArgs args) {
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (Isa isa : attention_variant_paths()) {
    std::vector<float> out1(full.batch * full.heads * full.q_len * full.dv, 55.0f), out2(out1.size(), 66.0f);
    args.out = out1.data();
    attention_f32(KernelContext{isa, false, nullptr}, args);
    args.out = out2.data();
    attention_f32(KernelContext{isa, false, &pool}, args);
    ASSERT_EQ(0, std::memcmp(out1.data(), out2.data(), out1.size() * 4)) << isa_name(isa);
    double worst = 0;
    for (std::size_t b = 0; b < full.batch; ++b)
      for (std::size_t h = 0; h < full.heads; ++h)
        for (std::size_t i = 0; i < full.q_len; ++i) {
          const RowView r = row_view(full, b, h, i);
          const std::vector<double> want =
              attn_naive::attention_row_double(r.q, r.k, r.v, r.mask, full.d, full.dv, full.scale);
          for (std::size_t x = 0; x < full.dv; ++x) {
            const float got = out1[((b * full.heads + h) * full.q_len + i) * full.dv + x];
            if (std::isnan(want[x])) {
              if (args.divide_empty_rows_by_one) EXPECT_EQ(got, 0.0f) << isa_name(isa);
              else EXPECT_EQ(bits(got), 0x7FC00000u) << isa_name(isa);
              continue;
            }
            worst = std::max(worst, std::fabs(got - want[x]));
          }
        }
    // kernels-attention.md, "Accuracy": tests use a bound of 4e-6.
    EXPECT_LE(worst, 4e-6) << isa_name(isa) << " q " << full.q_len << " kv " << full.kv_len << " d " << full.d
                           << " dv " << full.dv;
  }
}

TEST(AttentionKernelTest, FastHeadDimsAndMasks) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.FastHeadDimsAndMasks");
  std::mt19937 rng(25);
  // (heads, kv_heads, q_len, kv_len, d, dv, mask): head dims 32, 64, 80 and widths that are no
  // multiple of 8 or 16 lanes; partial query and key blocks; grouped key/value heads.
  const std::vector<std::vector<std::size_t>> shapes = {
      {2, 2, 64, 128, 32, 32, 1}, {2, 1, 40, 100, 64, 64, 1}, {2, 2, 33, 130, 80, 80, 0}, {1, 1, 17, 70, 80, 80, 1},
      {2, 2, 9, 65, 10, 13, 1},   {1, 1, 5, 64, 18, 7, 0},    {1, 1, 1, 1, 2, 1, 0},      {3, 3, 3, 200, 6, 40, 1},
      {1, 1, 32, 191, 96, 24, 1}};
  for (const auto& s : shapes) {
    const Case c = make_case(rng, 2, s[0], s[1], s[2], s[3], s[4], s[5], s[6] != 0);
    check_fast(c, args_of(c, nullptr));
  }
}

TEST(AttentionKernelTest, FastBroadcastMasks) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.FastBroadcastMasks");
  std::mt19937 rng(26);
  for (std::size_t kv_len : {64u, 77u, 150u}) {
    // One mask row per batch (batch, 1, 1, kv_len): strides 0 over heads and rows.
    Case small = make_case(rng, 2, 3, 3, 37, kv_len, 32, 32, true);
    small.mask_broadcast_rows = true;
    small.mask.resize(small.batch * kv_len);
    Case full = small;
    full.mask_broadcast_rows = false;
    full.mask.clear();
    for (std::size_t b = 0; b < full.batch; ++b)
      for (std::size_t h = 0; h < full.heads; ++h)
        for (std::size_t i = 0; i < full.q_len; ++i)
          full.mask.insert(full.mask.end(), small.mask.begin() + static_cast<std::ptrdiff_t>(b * kv_len),
                           small.mask.begin() + static_cast<std::ptrdiff_t>((b + 1) * kv_len));
    check_fast(full, args_of(small, nullptr));
    // One value per (b, h, i) broadcast over the keys (column stride 0).
    Case per_row = make_case(rng, 1, 2, 2, 20, kv_len, 64, 64, true);
    std::vector<float> values(per_row.batch * per_row.heads * per_row.q_len);
    for (std::size_t r = 0; r < values.size(); ++r) values[r] = per_row.mask[r * kv_len];
    for (std::size_t r = 0; r < values.size(); ++r)
      for (std::size_t j = 0; j < kv_len; ++j) per_row.mask[r * kv_len + j] = values[r];
    AttentionArgs a = args_of(per_row, nullptr);
    a.mask = values.data();
    a.mask_strides = {static_cast<std::ptrdiff_t>(per_row.heads * per_row.q_len),
                      static_cast<std::ptrdiff_t>(per_row.q_len), 1};
    a.mask_column_stride = 0;
    check_fast(per_row, a);
  }
}

TEST(AttentionKernelTest, FastFullyMaskedRows) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("AttentionKernelTest.FastFullyMaskedRows");
  std::mt19937 rng(27);
  Case c = make_case(rng, 1, 2, 2, 40, 150, 32, 32, true);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t j = 0; j < c.kv_len; ++j) {
      const std::size_t row = h * c.q_len;
      c.mask[(row + 0) * c.kv_len + j] = -INFINITY;                   // fully masked
      c.mask[(row + 5) * c.kv_len + j] = j < 128 ? -INFINITY : 0.0f;  // first two blocks masked
      c.mask[(row + 39) * c.kv_len + j] = -INFINITY;                  // in the last, partial item
    }
  check_fast(c, args_of(c, nullptr));
  AttentionArgs a = args_of(c, nullptr);
  a.divide_empty_rows_by_one = true;
  check_fast(c, a);
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(AttentionRegistry, ListFormAndDispatch) {
  kernel_tests::expect_registry_form(attention_variants(), "f32_attention");
  EXPECT_FALSE(attention_variant_paths().empty());
}

}  // namespace
