// Float walks and ulp spacing for the accuracy tests of the fast-mode functions
// (elementwise_fast_sigmoid_test.cpp, elementwise_fast_gelu_test.cpp). Header-only, so the cross
// kernel tests (aarch64, WebAssembly) use it too.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/kernels/float_bits.hpp"

namespace onemodel::test {

// The float32 spacing at the correctly rounded value of `exact` (2^-149 for zero and subnormals),
// as docs/transcendentals-ulp.md measures.
inline double spacing_at(double exact) {
  const float rounded = static_cast<float>(exact);
  const float a = std::fabs(rounded);
  if (a < 1.17549435e-38f) return std::ldexp(1.0, -149);
  int e = 0;
  std::frexp(static_cast<double>(a), &e);
  return std::ldexp(1.0, e - 24);
}

// Floats from lo to hi (lo <= hi, both finite), every `stride`-th in order.
inline std::vector<float> walk(float lo, float hi, std::uint32_t stride) {
  std::vector<float> v;
  // Order floats by an integer key: negative floats reversed below the positive ones.
  auto key = [](float f) {
    const std::uint32_t b = onemodel::test::bits(f);
    return (b & 0x80000000u) != 0 ? static_cast<std::int64_t>(0x80000000u) - static_cast<std::int64_t>(b & 0x7FFFFFFFu)
                                  : static_cast<std::int64_t>(0x80000000u) + static_cast<std::int64_t>(b);
  };
  auto unkey = [](std::int64_t k) {
    const std::int64_t mid = 0x80000000ll;
    return k >= mid ? onemodel::test::from_bits(static_cast<std::uint32_t>(k - mid))
                    : onemodel::test::from_bits(0x80000000u | static_cast<std::uint32_t>(mid - k));
  };
  for (std::int64_t k = key(lo); k <= key(hi); k += stride) v.push_back(unkey(k));
  return v;
}

}  // namespace onemodel::test
