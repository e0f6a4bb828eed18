// The WebAssembly SIMD128 path of the quantization kernels (quantize.hpp), 4 lanes. The x86
// path's sequence (quantize_sse.cpp gives why each step is the reference's bits): f32x4.nearest
// rounds to nearest even; f32x4.pmax(lo, t) is `lo < t ? t : lo`, which gives lo for a NaN t (the
// type's smallest value), and f32x4.pmin(hi, m) is `m < hi ? m : hi`; in-range integers convert
// and narrow exactly (the saturating narrows only narrow). The min/max reduction's pmin(acc, v) =
// `v < acc ? v : acc` skips a NaN v as the reference's std::min. The loops, the scalar rest and
// the min/max fold are quantize_lanes.hpp's.
#include <wasm_simd128.h>

#include "optimized/kernels/quantize/quantize_lanes.hpp"

namespace onemodel::opt::quantize {
namespace {

struct WasmLanes {
  using F = v128_t;
  static constexpr std::size_t kLanes = 4;
  static F splat(float v) noexcept { return wasm_f32x4_splat(v); }
  static F load(const float* p) noexcept { return wasm_v128_load(p); }
  static v128_t quantize(F x, F scale, F zero_point, F lo, F hi) noexcept {
    const v128_t t = wasm_f32x4_add(wasm_f32x4_nearest(wasm_f32x4_div(x, scale)), zero_point);
    return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_pmin(hi, wasm_f32x4_pmax(lo, t)));
  }
  template <Out kOut>
  static constexpr std::size_t step() noexcept { return is_byte(kOut) ? 16 : 8; }
  template <Out kOut, class Q>
  static void store(void* y, std::size_t i, Q q) noexcept {
    if constexpr (is_byte(kOut)) {
      const v128_t ab = wasm_i16x8_narrow_i32x4(q(i), q(i + 4));
      const v128_t cd = wasm_i16x8_narrow_i32x4(q(i + 8), q(i + 12));
      const v128_t bytes = kOut == Out::U8 ? wasm_u8x16_narrow_i16x8(ab, cd) : wasm_i8x16_narrow_i16x8(ab, cd);
      wasm_v128_store(static_cast<std::uint8_t*>(y) + i, bytes);
    } else {
      const v128_t a = q(i), c = q(i + 4);
      const v128_t words = kOut == Out::U16 ? wasm_u16x8_narrow_i32x4(a, c) : wasm_i16x8_narrow_i32x4(a, c);
      wasm_v128_store(static_cast<std::uint16_t*>(y) + i, words);
    }
  }
  static F lower(F v, F acc) noexcept { return wasm_f32x4_pmin(acc, v); }
  static F higher(F v, F acc) noexcept { return wasm_f32x4_pmax(acc, v); }
  static void store_floats(float* to, F v) noexcept { wasm_v128_store(to, v); }
};

}  // namespace

void quantize_run__wasm(const Run& run) noexcept { quantize_lanes<WasmLanes>(run); }

MinMax min_max__wasm(const float* x, std::size_t n) noexcept { return min_max_lanes<WasmLanes>(x, n); }

}  // namespace onemodel::opt::quantize
