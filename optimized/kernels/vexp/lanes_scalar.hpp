// One-lane "vector" operations for the scalar path. Every kernel body (exp_lanes.hpp,
// sum16_body.hpp, ...) is a template over a lanes type with this interface; the scalar path runs
// the same operation sequence one element at a time, so lane width never changes a bit
// (exact-transcendentals.md, Rules: "The same operation sequence runs for scalar, 128-, 256- and
// 512-bit lanes"). Include only from *_scalar.cpp files.
#pragma once

#include <cstdint>
#include <cstring>

namespace onemodel::opt::scalar {

struct Lanes {
  static constexpr int kWidth = 1;
  // No fused multiply-add is assumed on the portable path: fast mode multiplies then adds.
  static constexpr bool kHasFma = false;
  using F = float;
  using M = bool;
  using I = std::uint32_t;

  static F load(const float* p) noexcept { return *p; }
  static void store(float* p, F v) noexcept { *p = v; }
  static F set1(float v) noexcept { return v; }
  static F zero() noexcept { return 0.0f; }
  static F add(F a, F b) noexcept { return a + b; }
  static F sub(F a, F b) noexcept { return a - b; }
  static F mul(F a, F b) noexcept { return a * b; }
  static F div(F a, F b) noexcept { return a / b; }
  static F sqrt(F a) noexcept { return __builtin_sqrtf(a); }
  // Fast mode only: a*b + c, fused where the path has FMA.
  static F fmadd(F a, F b, F c) noexcept { return a * b + c; }
  static M gt(F a, F b) noexcept { return a > b; }
  static M lt(F a, F b) noexcept { return a < b; }
  static M eq(F a, F b) noexcept { return a == b; }
  static M is_nan(F a) noexcept { return a != a; }
  // m ? a : b
  static F select(M m, F a, F b) noexcept { return m ? a : b; }
  static I bits(F v) noexcept {
    I out;
    std::memcpy(&out, &v, sizeof out);
    return out;
  }
  static F from_bits(I v) noexcept {
    F out;
    std::memcpy(&out, &v, sizeof out);
    return out;
  }
  static I set1i(std::uint32_t v) noexcept { return v; }
  static I iadd(I a, I b) noexcept { return a + b; }
  static I isub(I a, I b) noexcept { return a - b; }
  static I shl23(I a) noexcept { return a << 23; }
  static F abs(F a) noexcept { return from_bits(bits(a) & 0x7FFFFFFFu); }
};

}  // namespace onemodel::opt::scalar
