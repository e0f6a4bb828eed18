// The WebAssembly SIMD128 path of the depthwise plane walk (kernels-depthwise.md): 4 lanes of
// neighbouring output columns; outputs narrower than 4 columns use the scalar twin. SIMD128 has
// no fused multiply-add, so fast mode is acc + w*x here.
#include <wasm_simd128.h>

#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {
namespace {

struct WasmLanes {
  using V = v128_t;
  static constexpr std::size_t kWidth = 4;
  static V zero() noexcept { return wasm_f32x4_splat(0.0f); }
  static V set1(float v) noexcept { return wasm_f32x4_splat(v); }
  static V load(const float* p) noexcept { return wasm_v128_load(p); }
  static void store(float* p, V v) noexcept { wasm_v128_store(p, v); }
  static V add(V a, V b) noexcept { return wasm_f32x4_add(a, b); }
  static V mul(V a, V b) noexcept { return wasm_f32x4_mul(a, b); }
  static V madd(V acc, V w, V x) noexcept { return wasm_f32x4_add(acc, wasm_f32x4_mul(w, x)); }
  // exact-mode.md rule 4: NaN lanes (not equal to themselves) become 0x7FC00000.
  static V canonical(V v) noexcept { return wasm_v128_bitselect(wasm_i32x4_splat(0x7FC00000), v, wasm_f32x4_ne(v, v)); }
};

}  // namespace

void depthwise_plane_wasm(const DepthwisePlaneJob& job) {
  if (job.out_w >= WasmLanes::kWidth) {
    depthwise_detail::walk_plane<WasmLanes>(job);
  } else {
    depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<false>>(job);
  }
}

void depthwise_phase_rows_wasm(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                               std::size_t rows, float* out, std::size_t out_step) {
  depthwise_detail::copy_phase_rows<WasmLanes>(src, src_step, stride, count, rows, out, out_step);
}

}  // namespace onemodel::opt
