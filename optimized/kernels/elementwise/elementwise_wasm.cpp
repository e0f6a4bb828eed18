// The WebAssembly SIMD128 path of the element-wise kernels: 4 lanes of the sequences in
// lane_math.hpp. f32x4 add/sub/mul/div/sqrt are single IEEE operations (no relaxed-SIMD fused
// forms are used); comparisons are false for NaN; bitselect for the selections. NaN bit patterns
// are nondeterministic in WebAssembly, which the canonical NaN at the end of every function hides.
#include <wasm_simd128.h>

#include <cstdint>

#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/elementwise/lane_loops.hpp"

namespace onemodel::opt::ew {
namespace {

struct WasmLanes {
  using F = v128_t;
  using M = v128_t;
  using I = v128_t;
  static constexpr std::size_t kWidth = 4;
  static F load(const float* p) noexcept { return wasm_v128_load(p); }
  static void store(float* p, F v) noexcept { wasm_v128_store(p, v); }
  static F splat(float v) noexcept { return wasm_f32x4_splat(v); }
  static I splat_i(std::uint32_t v) noexcept { return wasm_i32x4_splat(static_cast<std::int32_t>(v)); }
  static F add(F a, F b) noexcept { return wasm_f32x4_add(a, b); }
  static F sub(F a, F b) noexcept { return wasm_f32x4_sub(a, b); }
  static F mul(F a, F b) noexcept { return wasm_f32x4_mul(a, b); }
  static F div(F a, F b) noexcept { return wasm_f32x4_div(a, b); }
  static F sqrt(F a) noexcept { return wasm_f32x4_sqrt(a); }
  static M lt(F a, F b) noexcept { return wasm_f32x4_lt(a, b); }
  static M gt(F a, F b) noexcept { return wasm_f32x4_gt(a, b); }
  static M ge(F a, F b) noexcept { return wasm_f32x4_ge(a, b); }
  static M eq(F a, F b) noexcept { return wasm_f32x4_eq(a, b); }
  static M is_nan(F a) noexcept { return wasm_f32x4_ne(a, a); }
  static bool all(M m) noexcept { return wasm_i32x4_all_true(m); }
  static F select(M m, F t, F f) noexcept { return wasm_v128_bitselect(t, f, m); }
  static I bits(F a) noexcept { return a; }
  static F from_bits(I u) noexcept { return u; }
  static I add_i(I a, I b) noexcept { return wasm_i32x4_add(a, b); }
  static I sub_i(I a, I b) noexcept { return wasm_i32x4_sub(a, b); }
  static I and_i(I a, I b) noexcept { return wasm_v128_and(a, b); }
  static I or_i(I a, I b) noexcept { return wasm_v128_or(a, b); }
  static I xor_i(I a, I b) noexcept { return wasm_v128_xor(a, b); }
  template <int N>
  static I srai(I a) noexcept {
    return wasm_i32x4_shr(a, N);
  }
  template <int N>
  static I slli(I a) noexcept {
    return wasm_i32x4_shl(a, N);
  }
};

}  // namespace

void unary_f32__wasm(const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  unary_lanes<WasmLanes>(args, x, y, n);
}

void scale_shift_activation_f32__wasm(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                      std::size_t n) {
  scale_shift_activation_lanes<WasmLanes>(a, shift, act, x, y, n);
}

void binary_f32__wasm(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                      float* y, std::size_t n) {
  binary_lanes<WasmLanes>(op, a, a_step, b, b_step, y, n);
}

}  // namespace onemodel::opt::ew
