// The softmax rows' fast-mode bits and their in-place use (optimized/kernels/softmax/), against
// naive scalar definitions written from exact-transcendentals.md "Fast exponential" and
// kernels-attention.md "Softmax": fast mode is deterministic on one machine, so each path's fast
// outputs are pinned bit for bit to the text's steps with that path's multiply-add (fused where
// its lanes have FMA: AVX2, AVX-512, NEON; a product then a sum elsewhere). The kernel's
// exponential leaves out the clamps that change no output (softmax_body.hpp, exp_lanes.hpp);
// these tests keep it honest. The in-place test covers the row's last vector, which is read before
// any exponential is stored (rows of the op's non-last axis are normalised in place).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/softmax/softmax.hpp"
#include "optimized/kernels/softmax/softmax_variants.hpp"
#include "optimized/kernels/vexp/vexp.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using namespace onemodel::opt;
using attn_naive::bits;
using attn_naive::from_bits;

bool fused(Isa isa) { return isa == Isa::Avx2 || isa == Isa::Avx512 || isa == Isa::Neon; }

// exact-transcendentals.md "Fast exponential", literally; a NaN x gives a NaN.
float fast_exp(float x, bool fma) {
  const auto mul_add = [fma](float a, float b, float c) { return fma ? std::fma(a, b, c) : a * b + c; };
  if (std::isnan(x)) return x;
  const float xc = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  const float M = 12582912.0f;
  const float t = mul_add(xc, 1.44269502f, M);
  const float n = t - M;
  float r = mul_add(n, -0.693145751953125f, xc);
  r = mul_add(n, -1.4286068e-6f, r);
  float q = mul_add(0.008312525f, r, 0.041890115f);
  q = mul_add(q, r, 0.16667114f);
  q = mul_add(q, r, 0.4999923f);
  const float p = 1.0f + mul_add(r * r, q, r);
  const float result = p * from_bits((bits(t) - bits(M) + 127u) << 23);
  return x < -87.3f ? 0.0f : result;
}

// kernels-attention.md "Softmax", fast: the fast exponential and e * (1 / l).
std::vector<float> fast_softmax(const float* x, std::size_t n, bool fma) {
  float m = attn_naive::kNegInf;
  for (std::size_t j = 0; j < n; ++j) m = x[j] > m ? x[j] : m;
  std::vector<float> e(n);
  for (std::size_t j = 0; j < n; ++j) e[j] = fast_exp(x[j] - m, fma);
  const float inv = 1.0f / attn_naive::sum16(e);
  for (float& v : e) v = attn_naive::canonical(v * inv);
  return e;
}

std::vector<float> random_values(std::mt19937& rng, std::size_t count, bool specials) {
  std::normal_distribution<float> normal(0.0f, 4.0f);
  std::uniform_int_distribution<int> pick(0, 60);
  std::vector<float> x(count);
  for (float& v : x) {
    v = normal(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: v = attn_naive::kNegInf; break;
      case 1: v = -0.0f; break;
      case 2: v = -150.0f; break;
      case 3: v = 95.0f; break;
      default: break;
    }
  }
  return x;
}

TEST(SoftmaxRowsTest, FastExpMatchesTheTextBitForBit) {
  std::vector<float> x = {88.3f, 88.31f, 89.0f, 1000.0f, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::max(), -87.3f, -87.29f, -87.31f, -1000.0f,
                          attn_naive::kNegInf, 0.0f, -0.0f, 1e-30f, -1e-30f};
  // Every 997th bit pattern: both signs, huge and tiny magnitudes, infinities and NaNs.
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFu; b += 997) x.push_back(from_bits(static_cast<std::uint32_t>(b)));
  for (Isa isa : kernel_tests::variant_paths(vexp_variants())) {
    std::vector<float> y(x.size());
    fast_exp_f32(isa, x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want = fast_exp(x[i], fused(isa));
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y[i])) << isa_name(isa) << " x=" << x[i];
      } else {
        ASSERT_EQ(bits(y[i]), bits(want)) << isa_name(isa) << " x=" << x[i] << " bits " << std::hex << bits(x[i]);
      }
    }
  }
}

TEST(SoftmaxRowsTest, FastRowsMatchTheTextBitForBit) {
  const two_threads::RequireSharedCalls shared_calls("SoftmaxRowsTest.FastRowsMatchTheTextBitForBit");
  std::mt19937 rng(5);
  ThreadPool pool(2, two_threads::kAlways);
  for (std::size_t cols : {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65, 100, 192, 197, 200, 208, 1000}) {
    for (bool specials : {false, true}) {
      // More than one chunk of 16384 elements, so that two threads share the call.
      const std::size_t rows = 16384 / cols + 3;
      const std::vector<float> x = random_values(rng, rows * cols, specials);
      for (Isa isa : kernel_tests::variant_paths(softmax_variants())) {
        std::vector<float> want(x.size());
        for (std::size_t r = 0; r < rows; ++r) {
          const std::vector<float> row = fast_softmax(x.data() + r * cols, cols, fused(isa));
          std::copy(row.begin(), row.end(), want.begin() + static_cast<std::ptrdiff_t>(r * cols));
        }
        for (int threads : {1, 2}) {
          std::vector<float> y(x.size(), 7.0f);
          softmax_rows_f32(KernelContext{isa, false, threads == 2 ? &pool : nullptr}, x.data(), y.data(), rows, cols);
          for (std::size_t i = 0; i < y.size(); ++i) {
            ASSERT_EQ(bits(y[i]), bits(want[i])) << isa_name(isa) << " threads " << threads << " cols " << cols
                                                 << " at " << i << " got " << y[i] << " want " << want[i];
          }
        }
      }
    }
  }
}

TEST(SoftmaxRowsTest, InPlaceEqualsOutOfPlace) {
  const two_threads::RequireSharedCalls shared_calls("SoftmaxRowsTest.InPlaceEqualsOutOfPlace");
  std::mt19937 rng(9);
  ThreadPool pool(2, two_threads::kAlways);
  const auto log_fn = [](float v) { return std::log(v); };
  for (std::size_t cols : {1, 5, 8, 13, 16, 17, 23, 31, 40, 197, 203}) {
    const std::size_t rows = 16384 / cols + 5;
    const std::vector<float> x = random_values(rng, rows * cols, true);
    for (Isa isa : kernel_tests::variant_paths(softmax_variants())) {
      for (bool exact : {false, true}) {
        for (bool log : {false, true}) {
          for (int threads : {1, 2}) {
            const KernelContext context{isa, exact, threads == 2 ? &pool : nullptr};
            std::vector<float> apart(x.size()), inplace = x;
            if (log) {
              log_softmax_rows_f32(context, x.data(), apart.data(), rows, cols, log_fn);
              log_softmax_rows_f32(context, inplace.data(), inplace.data(), rows, cols, log_fn);
            } else {
              softmax_rows_f32(context, x.data(), apart.data(), rows, cols);
              softmax_rows_f32(context, inplace.data(), inplace.data(), rows, cols);
            }
            for (std::size_t i = 0; i < x.size(); ++i) {
              ASSERT_EQ(bits(inplace[i]), bits(apart[i]))
                  << isa_name(isa) << (exact ? " exact" : " fast") << (log ? " log" : "") << " threads " << threads
                  << " cols " << cols << " at " << i;
            }
          }
        }
      }
    }
  }
}

}  // namespace
