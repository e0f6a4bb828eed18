#include <cstdint>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {

CaseList all_cases() {
  CaseList cases;
  add_matmul_cases(cases);
  add_conv_cases(cases);
  add_attention_cases(cases);
  add_norm_cases(cases);
  add_elementwise_cases(cases);
  add_transcendental_cases(cases);
  add_more_cases(cases);
  add_half_cases(cases);
  add_control_cases(cases);
  add_int8_cases(cases);
  add_random_cases(cases);
  return cases;
}

std::vector<float> special_values() {
  const std::uint32_t bits[] = {
      0x00000000u, 0x80000000u,                            // +0, -0
      0x7F800000u, 0xFF800000u,                            // +inf, -inf
      0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFBFFFFFu,  // quiet and signalling NaNs, both signs
      0x7FC12345u,                                         // NaN with a payload
      0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,  // smallest and largest subnormals
      0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,  // smallest and largest normals
      0x3F800000u, 0xBF800000u, 0x3F000000u, 0xBF000000u,  // +-1, +-0.5
      0x33800000u, 0xB3800000u, 0x42B17218u, 0xC2CFF1B5u,  // +-2^-24, near exp's overflow and underflow
      0x42B00000u, 0xC2B00000u, 0x41200000u, 0xC1200000u,  // +-88, +-10
      0x3F317218u, 0x40490FDBu, 0x3DCCCCCDu, 0xBDCCCCCDu,  // ln 2, pi, +-0.1
  };
  std::vector<float> values;
  for (std::uint32_t b : bits) values.push_back(float_from_bits(b));
  return values;
}

}  // namespace onemodel::golden
