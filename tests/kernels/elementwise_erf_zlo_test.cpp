// erf's ax^2 = z + zLo (spec-source exact-transcendentals.md "erf(x)"): the spec forms zLo by the
// Veltkamp split and Dekker's product; the AVX2 and AVX-512 lanes form it by one fused
// a*b - p (lane_math.hpp erf_parts, Lanes::product_error). The two agree because Dekker's zLo is
// the exact error ax^2 - z for every ax the sequence keeps it for, [0.5, 64), and a fused step
// returns an exactly representable value unrounded. Checked here:
//  - on every float ax in [0.5, 64]: the scalar Dekker sequence gives ax^2 - z exactly (the exact
//    value computed in double, where ax^2 needs 48 bits);
//  - Erf, GeluErf and ErfGateChain (the three users of erf_parts) on every path of this machine
//    give the scalar path's bits (which runs Dekker's sequence) on every 5th float of +-[0.5, 64]
//    and every float within 4096 ulps of +-64 (zLo's clamp), at 1 and 2 threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
namespace ew = onemodel::opt::ew;

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The spec's sequence, one rounding per operation (this file is built with -ffp-contract=off).
float dekker_z_lo(float ax, float z) {
  const float split = ax * 4097.0f;
  const float hi = split - (split - ax);
  const float lo = ax - hi;
  return (((hi * hi - z) + 2.0f * (hi * lo)) + lo * lo);
}

TEST(ErfZLo, DekkerGivesTheExactProductErrorOnEveryFloatOfItsRange) {
  for (std::uint32_t u = bits(0.5f); u <= bits(64.0f); ++u) {
    const float ax = from_bits(u);
    const float z = ax * ax;
    const double exact = static_cast<double>(ax) * static_cast<double>(ax) - static_cast<double>(z);
    const float z_lo = dekker_z_lo(ax, z);
    ASSERT_EQ(static_cast<double>(z_lo), exact) << "ax=" << ax;
  }
}

TEST(ErfZLo, EveryPathGivesTheScalarBitsAroundTheFusedErrorsRange) {
  std::vector<float> x;
  for (std::uint32_t u = bits(0.5f); u <= bits(64.0f); u += 5) {
    x.push_back(from_bits(u));
    x.push_back(from_bits(u | 0x80000000u));
  }
  for (std::uint32_t u = bits(64.0f) - 4096; u <= bits(64.0f) + 4096; ++u) {
    x.push_back(from_bits(u));
    x.push_back(from_bits(u | 0x80000000u));
  }
  x.push_back(0.25f);  // odd length: the tails run too
  const ew::UnaryArgs cases[] = {{ew::UnaryOp::Erf},
                                 {ew::UnaryOp::GeluErf},
                                 {ew::UnaryOp::ErfGateChain, 1.0f, 1.0f, false, 0.5f}};
  std::vector<float> want(x.size()), got(x.size());
  for (const ew::UnaryArgs& args : cases) {
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(args.op)));
    ew::unary_f32_run(Isa::Scalar, args, x.data(), want.data(), x.size());
    for (Isa isa : onemodel::opt::kernel_tests::variant_paths(ew::variants())) {
      for (int threads : {1, 2}) {
        onemodel::opt::ThreadPool pool(threads);
        std::fill(got.begin(), got.end(), 123.0f);
        ew::unary_f32(onemodel::opt::KernelContext{isa, true, &pool}, args, x.data(), got.data(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
          ASSERT_EQ(bits(got[i]), bits(want[i]))
              << onemodel::opt::isa_name(isa) << " threads " << threads << " x=" << x[i];
        }
      }
    }
  }
}

}  // namespace
