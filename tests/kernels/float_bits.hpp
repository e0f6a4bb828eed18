// A float's bit pattern and back, for the tests that compare results bit for bit (exact mode
// promises bits, not values: -0 and NaN payloads count). Header-only, so the cross kernel tests
// (aarch64, WebAssembly) use it too.
#pragma once

#include <cstdint>
#include <cstring>

namespace onemodel::test {

inline std::uint32_t bits(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

inline float from_bits(std::uint32_t u) {
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

}  // namespace onemodel::test
