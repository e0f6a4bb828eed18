// One-lane "vector" traits for the depthwise walk (depthwise_lanes.hpp): the scalar twin that
// every path uses for outputs narrower than its vectors, and the whole scalar path.
// kFused: fast mode uses one fused multiply-add (std::fma) - only where the path's hardware has
// one (kernels-depthwise.md "What each output is"). The unnamed namespace is deliberate: each
// per-path file gets its own copy, so instantiations compiled with different instruction sets
// never merge at link time.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace onemodel::opt::depthwise_detail {
namespace {

template <bool kFused>
struct ScalarLanes {
  using V = float;
  static constexpr std::size_t kWidth = 1;
  static V zero() noexcept { return 0.0f; }
  static V set1(float v) noexcept { return v; }
  static V load(const float* p) noexcept { return *p; }
  static void store(float* p, V v) noexcept { *p = v; }
  static V add(V a, V b) noexcept { return a + b; }
  static V mul(V a, V b) noexcept { return a * b; }
  static V madd(V acc, V w, V x) noexcept {
    if constexpr (kFused) {
      return std::fma(w, x, acc);
    } else {
      return acc + w * x;
    }
  }
  static V canonical(V v) noexcept { return v != v ? __builtin_bit_cast(float, std::uint32_t{0x7FC00000u}) : v; }
};

}  // namespace
}  // namespace onemodel::opt::depthwise_detail
