// The optimized engine's bulk conversions (optimized/runtime/half_conversions.cpp, vector paths in
// optimized/kernels/halfconv/) against the scalar rules of onemodel/half.hpp, which
// half_conversion_test checks against MPFR and the Z3 proofs check over all inputs
// (spec/half-precision.md sections 6 and 7): every binary16 and bfloat16 pattern widened, and
// several million binary32 patterns narrowed (every rounding boundary of both formats and its
// neighbours, random patterns), on every path this CPU has, at every length 0..40 for the tails.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "onemodel/half.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/runtime/half_conversions.hpp"
#include "tests/kernels/float_bits.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

using test::bits;
using test::from_bits;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> halfconv_variant_paths() { return kernel_tests::variant_paths(halfconv_variants()); }

std::vector<float> narrowing_patterns() {
  std::vector<float> out;
  // Every binary16 and bfloat16 value's binary32 form, the ties just above it and their
  // neighbours (the rounding boundaries of both formats).
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const std::uint32_t b16 = bits(half_bits_to_float(static_cast<std::uint16_t>(h)));
    const std::uint32_t bf = h << 16;
    for (std::uint32_t base : {b16, bf}) {
      for (std::uint32_t tie : {0u, 0x1000u, 0x8000u}) {
        for (int d = -1; d <= 1; ++d) out.push_back(from_bits(base + tie + static_cast<std::uint32_t>(d)));
      }
    }
  }
  // Subnormal binary16 results: every tie below 2^-14.
  for (std::uint32_t e = 102; e <= 113; ++e) {
    for (std::uint32_t m = 0; m < 4096; ++m) out.push_back(from_bits((e << 23) | (m << 11)));
  }
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000000; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    out.push_back(from_bits(static_cast<std::uint32_t>(s)));
  }
  return out;
}

TEST(HalfVectorConversion, WideningEqualsTheScalarRulesForEveryPattern) {
  std::vector<std::uint16_t> all(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<std::uint16_t>(h);
  for (Isa isa : halfconv_variant_paths()) {
    for (bool bf : {false, true}) {
      std::vector<float> got(all.size());
      widen_16_to_f32(isa, all.data(), got.data(), all.size(), bf);
      for (std::size_t i = 0; i < all.size(); ++i) {
        const float want = bf ? bfloat16_bits_to_float(all[i]) : half_bits_to_float(all[i]);
        ASSERT_EQ(bits(got[i]), bits(want)) << isa_name(isa) << (bf ? " bf16 " : " f16 ") << std::hex << all[i];
      }
    }
  }
}

TEST(HalfVectorConversion, NarrowingEqualsTheScalarRulesOnMillionsOfPatterns) {
  const std::vector<float> in = narrowing_patterns();
  ASSERT_GT(in.size(), 2500000u);
  for (Isa isa : halfconv_variant_paths()) {
    for (bool bf : {false, true}) {
      std::vector<std::uint16_t> got(in.size());
      narrow_f32_to_16(isa, in.data(), got.data(), in.size(), bf);
      for (std::size_t i = 0; i < in.size(); ++i) {
        const std::uint16_t want = bf ? float_to_bfloat16_bits(in[i]) : float_to_half_bits(in[i]);
        ASSERT_EQ(got[i], want) << isa_name(isa) << (bf ? " bf16 " : " f16 ") << std::hex << bits(in[i]);
      }
    }
  }
}

// Every length through the 8-lane loop and its tail, nothing written past the end.
TEST(HalfVectorConversion, EveryTailLengthAndNothingPastTheEnd) {
  for (Isa isa : halfconv_variant_paths()) {
    for (std::size_t n = 0; n <= 40; ++n) {
      std::vector<std::uint16_t> h(n + 1, 0xABCD);
      std::vector<float> f(n + 1, 7.0f);
      for (std::size_t i = 0; i < n; ++i) f[i] = static_cast<float>(i) * 0.37f - 3.0f;
      narrow_f32_to_16(isa, f.data(), h.data(), n, false);
      EXPECT_EQ(h[n], 0xABCD) << isa_name(isa) << " n " << n;
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(h[i], float_to_half_bits(f[i]));
      std::vector<float> back(n + 1, 9.0f);
      widen_16_to_f32(isa, h.data(), back.data(), n, false);
      EXPECT_EQ(back[n], 9.0f) << isa_name(isa) << " n " << n;
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(bits(back[i]), bits(half_bits_to_float(h[i])));
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(HalfconvRegistry, ListFormAndDispatch) {
  kernel_tests::expect_registry_form(halfconv_variants(), "f16_halfconv");
  EXPECT_FALSE(halfconv_variant_paths().empty());
}

}  // namespace
}  // namespace onemodel::opt
