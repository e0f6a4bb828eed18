// The WebAssembly SIMD128 path of the quantization kernels (quantize.hpp), 4 lanes. The x86
// path's sequence (quantize_sse.cpp gives why each step is the reference's bits): f32x4.nearest
// rounds to nearest even; f32x4.pmax(lo, t) is `lo < t ? t : lo`, which gives lo for a NaN t (the
// type's smallest value), and f32x4.pmin(hi, m) is `m < hi ? m : hi`; in-range integers convert
// and narrow exactly. The min/max reduction's pmin(acc, v) = `v < acc ? v : acc` skips a NaN v as
// the reference's std::min. Tails run the scalar loop.
#include <wasm_simd128.h>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

v128_t quantize4(v128_t x, v128_t scale, v128_t zero_point, v128_t lo, v128_t hi) noexcept {
  const v128_t t = wasm_f32x4_add(wasm_f32x4_nearest(wasm_f32x4_div(x, scale)), zero_point);
  return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_pmin(hi, wasm_f32x4_pmax(lo, t)));
}

struct Bounds {
  float lo, hi;
  std::size_t bytes;
};

Bounds bounds_of(Out out) noexcept {
  switch (out) {
    case Out::U8: return {0.0f, 255.0f, 1};
    case Out::I8: return {-128.0f, 127.0f, 1};
    case Out::U16: return {0.0f, 65535.0f, 2};
    default: return {-32768.0f, 32767.0f, 2};
  }
}

template <Out kOut, bool kPerLane>
void run_lanes(const Run& r) noexcept {
  const Bounds b = bounds_of(kOut);
  const v128_t lo = wasm_f32x4_splat(b.lo), hi = wasm_f32x4_splat(b.hi);
  const v128_t s1 = wasm_f32x4_splat(r.scale[0]), z1 = wasm_f32x4_splat(r.zero_point[0]);
  auto q = [&](std::size_t i) {
    const v128_t s = kPerLane ? wasm_v128_load(r.scale + i) : s1;
    const v128_t z = kPerLane ? wasm_v128_load(r.zero_point + i) : z1;
    return quantize4(wasm_v128_load(r.x + i), s, z, lo, hi);
  };
  // Values are in the type's range: the saturating narrows only narrow.
  constexpr std::size_t kStep = kOut == Out::U8 || kOut == Out::I8 ? 16 : 8;
  std::size_t i = 0;
  for (; i + kStep <= r.n; i += kStep) {
    if constexpr (kOut == Out::U8 || kOut == Out::I8) {
      const v128_t ab = wasm_i16x8_narrow_i32x4(q(i), q(i + 4));
      const v128_t cd = wasm_i16x8_narrow_i32x4(q(i + 8), q(i + 12));
      const v128_t bytes = kOut == Out::U8 ? wasm_u8x16_narrow_i16x8(ab, cd) : wasm_i8x16_narrow_i16x8(ab, cd);
      wasm_v128_store(static_cast<std::uint8_t*>(r.y) + i, bytes);
    } else {
      const v128_t a = q(i), c = q(i + 4);
      const v128_t words = kOut == Out::U16 ? wasm_u16x8_narrow_i32x4(a, c) : wasm_i16x8_narrow_i32x4(a, c);
      wasm_v128_store(static_cast<std::uint16_t*>(r.y) + i, words);
    }
  }
  if (i == r.n) return;
  Run tail = r;
  tail.x += i;
  tail.y = static_cast<std::uint8_t*>(r.y) + i * b.bytes;
  tail.n -= i;
  if (kPerLane) {
    tail.scale += i;
    tail.zero_point += i;
  }
  quantize_run__scalar(tail);
}

template <bool kPerLane>
void run_out(const Run& r) noexcept {
  switch (r.out) {
    case Out::U8: run_lanes<Out::U8, kPerLane>(r); break;
    case Out::I8: run_lanes<Out::I8, kPerLane>(r); break;
    case Out::U16: run_lanes<Out::U16, kPerLane>(r); break;
    case Out::I16: run_lanes<Out::I16, kPerLane>(r); break;
  }
}

}  // namespace

void quantize_run__wasm(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<true>(run);
  } else {
    run_out<false>(run);
  }
}

MinMax min_max__wasm(const float* x, std::size_t n) noexcept {
  v128_t lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = wasm_f32x4_splat(0.0f);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int k = 0; k < 4; ++k) {
      const v128_t v = wasm_v128_load(x + i + 4 * k);
      lo[k] = wasm_f32x4_pmin(lo[k], v);
      hi[k] = wasm_f32x4_pmax(hi[k], v);
    }
  }
  float l[16], h[16];
  for (int k = 0; k < 4; ++k) {
    wasm_v128_store(l + 4 * k, lo[k]);
    wasm_v128_store(h + 4 * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (int k = 0; k < 16; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace onemodel::opt::quantize
