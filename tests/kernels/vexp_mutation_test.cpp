// exp_non_positive_f32 (optimized/kernels/vexp/) on the inputs where the order of its first step
// matters: spec/exact-transcendentals.md computes n by rounding x * log2(e), then adding the magic
// constant 1.5 * 2^23 and rounding again; a fused multiply-add rounds once, and when x * log2(e)
// lies just beside a half-integer the two pick different n, and different bits at the end. The
// expected values are attn_naive::exp_non_positive (the text's steps, scalar, no FMA), compared bit
// for bit on every path over 4001 neighbours of x = -(k + 1/2) ln 2 for every k. Written for
// tools/mutate (issue 10): an FMA in that step passed the earlier sweeps, which never met such x.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/vexp/vexp.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> vexp_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(onemodel::opt::vexp_variants());
}

TEST(VexpMutation, ExpNonPositiveBesideEveryHalfInteger) {
  std::vector<float> x;
  for (int k = 0; k < 126; ++k) {
    const float centre = -(static_cast<float>(k) + 0.5f) * 0.69314718f;
    const std::uint32_t b = attn_naive::bits(centre);
    for (int d = -2000; d <= 2000; ++d) {
      const float v = attn_naive::from_bits(b + static_cast<std::uint32_t>(d));
      if (v <= 0.0f) x.push_back(v);
    }
  }
  // Found by a search over the text's steps with and without a fused first step.
  for (std::uint32_t u : {0xc18d66ebu, 0xc1a3952eu, 0xc1b9c371u, 0xc1cff1b4u, 0xc2359ac4u, 0xc2490340u, 0xc2541a61u}) {
    x.push_back(attn_naive::from_bits(u));
  }
  for (Isa isa : vexp_variant_paths()) {
    std::vector<float> y(x.size());
    onemodel::opt::exp_non_positive_f32(isa, x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(attn_naive::bits(y[i]), attn_naive::bits(attn_naive::exp_non_positive(x[i])))
          << "x " << x[i] << " (bits " << std::hex << attn_naive::bits(x[i]) << ") isa " << onemodel::opt::isa_name(isa);
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(VexpRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(onemodel::opt::vexp_variants(), "f32_vexp");
  EXPECT_FALSE(vexp_variant_paths().empty());
}

}  // namespace
