// The fast-mode GELU of the element-wise kernels (UnaryArgs::fast; lane_math.hpp fast_gelu_erf and
// fast_gelu_tanh; docs/design.md "Fast-mode GELU"). The source's fast GELU is "the same code with
// fused accumulation" and its fast exponential (spec-source exact-transcendentals.md, "Measured
// error"), held to the exact functions' documented bounds; so:
//  - on every path of this machine its error against GELU of the float input computed in double
//    (erfc and exp of the C library) stays within the exact sequence's pinned bounds on [-3, 10]
//    (13 ulp erf form, 18 tanh form, spec/exact-transcendentals.md section 8) and within the tail
//    bounds on [-10, -3], where one rounding of the argument costs about x^2 ulp (measured maxima
//    printed, the exact sequence's beside them);
//  - its special values are the exact functions' (+-0, +-inf, NaN -> 0x7FC00000, +-3e38);
//  - one element's result does not depend on its position, the chunking or the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "tests/kernels/float_walk.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;
namespace ew = onemodel::opt::ew;

std::vector<Isa> ew_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(ew::variants()); }

constexpr double kErfFormUlp = 13.0;
constexpr double kTanhFormUlp = 18.0;
// The negative tail: the source measures its exact sequences at 180 (erf form) and 218 (tanh form)
// ulp on [-12, -6] (spec-source exact-transcendentals.md); on [-10, -3] ours measure 85.5 and 199.3
// (session 21, every path). Fast mode is held to 100 and 230.
constexpr double kErfTailUlp = 100.0;
constexpr double kTanhTailUlp = 230.0;

using onemodel::test::bits;
using onemodel::test::from_bits;
using onemodel::test::spacing_at;
using onemodel::test::walk;

double gelu_double(ew::UnaryOp op, float xf) {
  const double x = static_cast<double>(xf);
  if (op == ew::UnaryOp::GeluErf) return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

ew::UnaryArgs with_flag(ew::UnaryOp op, bool fast) { return ew::for_mode(ew::UnaryArgs{op}, !fast); }

struct Worst {
  double ulp = 0.0;
  float x = 0.0f;
};

Worst measure(Isa isa, ew::UnaryOp op, bool fast, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  ew::unary_f32_run(isa, with_flag(op, fast), x.data(), y.data(), x.size());
  Worst worst;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = gelu_double(op, x[i]);
    const double e = std::fabs(static_cast<double>(y[i]) - want) / spacing_at(want);
    if (e > worst.ulp) worst = {e, x[i]};
  }
  return worst;
}

TEST(FastGelu, WithinTheExactBoundsOnEveryPath) {
  const std::vector<float> hot = walk(-3.0f, 10.0f, 499);
  const std::vector<float> tail = walk(-10.0f, -3.0f, 157);
  for (ew::UnaryOp op : {ew::UnaryOp::GeluErf, ew::UnaryOp::GeluTanh}) {
    const char* name = op == ew::UnaryOp::GeluErf ? "erf" : "tanh";
    for (Isa isa : ew_variant_paths()) {
      const Worst h = measure(isa, op, true, hot), t = measure(isa, op, true, tail);
      const Worst he = measure(isa, op, false, hot), te = measure(isa, op, false, tail);
      std::printf("%s %s: [-3, 10] max %.3f ulp at %.9g (exact %.3f); [-10, -3] max %.3f ulp at %.9g (exact %.3f)\n",
                  name, std::string(onemodel::opt::isa_name(isa)).c_str(), h.ulp, static_cast<double>(h.x), he.ulp,
                  t.ulp, static_cast<double>(t.x), te.ulp);
      EXPECT_LE(h.ulp, op == ew::UnaryOp::GeluErf ? kErfFormUlp : kTanhFormUlp)
          << name << " " << onemodel::opt::isa_name(isa) << " at x = " << h.x;
      EXPECT_LE(t.ulp, op == ew::UnaryOp::GeluErf ? kErfTailUlp : kTanhTailUlp) << name << " " << onemodel::opt::isa_name(isa) << " at x = " << t.x;
    }
  }
}

TEST(FastGelu, SpecialValuesAreTheExactFunctions) {
  const std::vector<float> x = {0.0f,    -0.0f,    INFINITY,        -INFINITY,       from_bits(0x7FC00000u),
                                from_bits(0xFFC01234u), 3.0e38f, -3.0e38f, 20.0f, -20.0f, from_bits(1u),
                                from_bits(0x80000001u)};
  for (ew::UnaryOp op : {ew::UnaryOp::GeluErf, ew::UnaryOp::GeluTanh}) {
    for (Isa isa : ew_variant_paths()) {
      std::vector<float> fast(x.size()), exact(x.size());
      ew::unary_f32_run(isa, with_flag(op, true), x.data(), fast.data(), x.size());
      ew::unary_f32_run(isa, with_flag(op, false), x.data(), exact.data(), x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(bits(fast[i]), bits(exact[i])) << onemodel::opt::isa_name(isa) << " x = " << x[i];
      }
    }
  }
}

TEST(FastGelu, SameBitsAtAnyPositionChunkAndThreadCount) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("FastGelu.SameBitsAtAnyPositionChunkAndThreadCount");
  std::vector<float> x = walk(-14.0f, 14.0f, 40009);
  while (x.size() < 3 * ew::kChunkElements + 5) x.insert(x.end(), x.begin(), x.begin() + 1000);
  for (ew::UnaryOp op : {ew::UnaryOp::GeluErf, ew::UnaryOp::GeluTanh}) {
    for (Isa isa : ew_variant_paths()) {
      // One element at a time (the tail alone) is the oracle for its position.
      std::vector<float> one(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) ew::unary_f32_run(isa, with_flag(op, true), &x[i], &one[i], 1);
      for (int threads : {1, 2}) {
        ThreadPool pool(threads, ThreadPool::Sharing::Always);
        std::vector<float> got(x.size(), 123.0f);
        ew::unary_f32(KernelContext{isa, false, &pool}, with_flag(op, true), x.data(), got.data(), x.size());
        ASSERT_EQ(std::memcmp(got.data(), one.data(), x.size() * sizeof(float)), 0)
            << onemodel::opt::isa_name(isa) << " threads " << threads;
      }
    }
  }
}

}  // namespace
