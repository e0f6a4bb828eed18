// The fast-mode sigmoid of the element-wise kernels (UnaryArgs::fast; lane_math.hpp fast_sigmoid;
// docs/design.md "Fast-mode sigmoid"). Fast mode promises "a few ulp" from the exact functions
// (spec-source ops-elementwise.md, "Function definitions") and the usual determinism, so:
//  - on every path of this machine its error against 1 / (1 + e^-x) computed in double stays within
//    kFastSigmoidUlp ulp over every 97th float of [-16, 16] and every 257th float of [-110, 90]
//    (subnormal results included; measured maxima printed), and its special values are the exact
//    function's (+-0 -> 0.5, +inf -> 1, -inf -> 0, NaN -> 0x7FC00000);
//  - one element's result does not depend on its position, the chunking or the thread count;
//  - fast SiLU is the Mul of x and the fast Sigmoid's stored value, bit for bit, as the separate
//    Sigmoid and Mul give it in fast mode (so the self-gate fusion keeps fast-mode bits);
//  - fast = false is still the exact sequence (elementwise_test.cpp checks those bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "tests/kernels/float_walk.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;
namespace ew = onemodel::opt::ew;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> ew_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(ew::variants()); }

// The bound this test pins: "a few ulp" made a number (the exact sequence's own bound is 2.5,
// spec/exact-transcendentals.md section 8).
constexpr double kFastSigmoidUlp = 3.0;

using onemodel::test::bits;
using onemodel::test::from_bits;
using onemodel::test::spacing_at;
using onemodel::test::walk;

double ulp_error(float got, float x) {
  const double exact = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
  return std::fabs(static_cast<double>(got) - exact) / spacing_at(exact);
}

ew::UnaryArgs fast(ew::UnaryOp op) { return ew::for_mode(ew::UnaryArgs{op}, false); }

struct Worst {
  double ulp = 0.0;
  float x = 0.0f;
};

Worst measure(Isa isa, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  ew::unary_f32_run(isa, fast(ew::UnaryOp::Sigmoid), x.data(), y.data(), x.size());
  Worst worst;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = ulp_error(y[i], x[i]);
    if (e > worst.ulp) worst = {e, x[i]};
  }
  return worst;
}

TEST(FastSigmoid, WithinTheFastModeBoundOnEveryPath) {
  const std::vector<float> hot = walk(-16.0f, 16.0f, 97);
  const std::vector<float> wide = walk(-110.0f, 90.0f, 257);
  for (Isa isa : ew_variant_paths()) {
    const Worst h = measure(isa, hot);
    const Worst w = measure(isa, wide);
    std::printf("%s: hot [-16, 16] stride 97 max %.3f ulp at %.9g; wide [-110, 90] stride 257 max %.3f ulp at %.9g\n",
                std::string(onemodel::opt::isa_name(isa)).c_str(), h.ulp, static_cast<double>(h.x), w.ulp,
                static_cast<double>(w.x));
    EXPECT_LE(h.ulp, kFastSigmoidUlp) << onemodel::opt::isa_name(isa) << " at x = " << h.x;
    EXPECT_LE(w.ulp, kFastSigmoidUlp) << onemodel::opt::isa_name(isa) << " at x = " << w.x;
  }
}

TEST(FastSigmoid, SpecialValuesAreTheExactFunctions) {
  const std::vector<float> x = {0.0f, -0.0f, INFINITY, -INFINITY, from_bits(0x7FC00000u), from_bits(0xFFC01234u),
                                from_bits(0x7F800001u), 200.0f, -200.0f, 3.0e38f, -3.0e38f, from_bits(1u)};
  const std::vector<std::uint32_t> want = {0x3F000000u, 0x3F000000u, 0x3F800000u, 0u,          0x7FC00000u, 0x7FC00000u,
                                           0x7FC00000u, 0x3F800000u, 0u,          0x3F800000u, 0u,          0x3F000000u};
  for (Isa isa : ew_variant_paths()) {
    std::vector<float> y(x.size());
    ew::unary_f32_run(isa, fast(ew::UnaryOp::Sigmoid), x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(bits(y[i]), want[i]) << onemodel::opt::isa_name(isa) << " x = " << x[i];
    }
  }
}

TEST(FastSigmoid, SameBitsAtAnyPositionChunkAndThreadCount) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls(
      "FastSigmoid.SameBitsAtAnyPositionChunkAndThreadCount");
  std::vector<float> x = walk(-20.0f, 20.0f, 40009);
  while (x.size() < 3 * ew::kChunkElements + 5) x.insert(x.end(), x.begin(), x.begin() + 1000);
  for (ew::UnaryOp op : {ew::UnaryOp::Sigmoid, ew::UnaryOp::Silu}) {
    for (Isa isa : ew_variant_paths()) {
      // One element at a time (the tail buffer alone) is the oracle for its position.
      std::vector<float> one(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) ew::unary_f32_run(isa, fast(op), &x[i], &one[i], 1);
      for (int threads : {1, 2}) {
        ThreadPool pool(threads, ThreadPool::Sharing::Always);
        std::vector<float> got(x.size(), 123.0f);
        ew::unary_f32(KernelContext{isa, false, &pool}, fast(op), x.data(), got.data(), x.size());
        ASSERT_EQ(std::memcmp(got.data(), one.data(), x.size() * sizeof(float)), 0)
            << onemodel::opt::isa_name(isa) << " threads " << threads;
      }
    }
  }
}

TEST(FastSigmoid, FastSiluIsTheMulOfTheFastSigmoid) {
  std::vector<float> x = walk(-30.0f, 30.0f, 30011);
  x.insert(x.end(), {0.0f, -0.0f, INFINITY, -INFINITY, from_bits(0xFFC01234u), 3.0e38f, -3.0e38f});
  for (Isa isa : ew_variant_paths()) {
    std::vector<float> gate(x.size()), product(x.size()), silu(x.size());
    ew::unary_f32_run(isa, fast(ew::UnaryOp::Sigmoid), x.data(), gate.data(), x.size());
    ew::binary_f32_run(isa, ew::BinaryOp::Mul, x.data(), 1, gate.data(), 1, product.data(), x.size());
    ew::unary_f32_run(isa, fast(ew::UnaryOp::Silu), x.data(), silu.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(bits(silu[i]), bits(product[i])) << onemodel::opt::isa_name(isa) << " x = " << x[i];
    }
  }
}

// The fast flag changes only Sigmoid, SiLU and the GELU forms (elementwise_fast_gelu_test.cpp):
// the other functions give their exact bits.
TEST(FastSigmoid, OtherFunctionsIgnoreTheFlag) {
  const std::vector<float> x = walk(-9.0f, 9.0f, 100003);
  for (ew::UnaryOp op : {ew::UnaryOp::Tanh, ew::UnaryOp::Exp, ew::UnaryOp::Erf, ew::UnaryOp::Relu}) {
    for (Isa isa : ew_variant_paths()) {
      std::vector<float> a(x.size()), b(x.size());
      ew::unary_f32_run(isa, ew::UnaryArgs{op}, x.data(), a.data(), x.size());
      ew::unary_f32_run(isa, fast(op), x.data(), b.data(), x.size());
      ASSERT_EQ(std::memcmp(a.data(), b.data(), x.size() * sizeof(float)), 0) << onemodel::opt::isa_name(isa);
    }
  }
}

}  // namespace
