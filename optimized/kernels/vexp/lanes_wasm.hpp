// Four-lane operations on WebAssembly SIMD128, the interface of lanes_scalar.hpp. Include only
// from *_wasm.cpp files (compiled with -msimd128). SIMD128 has no fused multiply-add.
#pragma once

#include <wasm_simd128.h>

#include <cstdint>

namespace onemodel::opt::wasm {

struct Lanes {
  static constexpr int kWidth = 4;
  static constexpr bool kHasFma = false;
  using F = v128_t;
  using M = v128_t;
  using I = v128_t;

  static F load(const float* p) noexcept { return wasm_v128_load(p); }
  static void store(float* p, F v) noexcept { wasm_v128_store(p, v); }
  static F set1(float v) noexcept { return wasm_f32x4_splat(v); }
  static F zero() noexcept { return wasm_f32x4_splat(0.0f); }
  static F add(F a, F b) noexcept { return wasm_f32x4_add(a, b); }
  static F sub(F a, F b) noexcept { return wasm_f32x4_sub(a, b); }
  static F mul(F a, F b) noexcept { return wasm_f32x4_mul(a, b); }
  static F div(F a, F b) noexcept { return wasm_f32x4_div(a, b); }
  static F sqrt(F a) noexcept { return wasm_f32x4_sqrt(a); }
  static F fmadd(F a, F b, F c) noexcept { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
  static M gt(F a, F b) noexcept { return wasm_f32x4_gt(a, b); }
  static M lt(F a, F b) noexcept { return wasm_f32x4_lt(a, b); }
  static M eq(F a, F b) noexcept { return wasm_f32x4_eq(a, b); }
  static M is_nan(F a) noexcept { return wasm_f32x4_ne(a, a); }
  static F select(M m, F a, F b) noexcept { return wasm_v128_bitselect(a, b, m); }
  static I bits(F v) noexcept { return v; }
  static F from_bits(I v) noexcept { return v; }
  static I set1i(std::uint32_t v) noexcept { return wasm_i32x4_splat(static_cast<int>(v)); }
  static I iadd(I a, I b) noexcept { return wasm_i32x4_add(a, b); }
  static I isub(I a, I b) noexcept { return wasm_i32x4_sub(a, b); }
  static I shl23(I a) noexcept { return wasm_i32x4_shl(a, 23); }
  static F abs(F a) noexcept { return wasm_f32x4_abs(a); }
};

}  // namespace onemodel::opt::wasm
