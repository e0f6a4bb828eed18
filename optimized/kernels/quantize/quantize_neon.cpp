// The NEON path of the quantization kernels (quantize.hpp), 4 lanes (aarch64). The x86 path's
// sequence (quantize_sse.cpp gives why each step is the reference's bits) with two differences
// of the instruction set: FRINTN (vrndnq_f32) rounds to nearest even whatever FPCR's rounding
// mode; FMAX/FMIN return NaN when either operand is NaN, so the NaN lanes are selected to the
// type's smallest value explicitly (a NaN never equals itself), and the min/max reduction takes
// v only where v < acc (false on NaN), as the reference's std::min. In-range integers narrow
// exactly with XTN. Tails run the scalar loop.
#include <arm_neon.h>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

int32x4_t quantize4(float32x4_t x, float32x4_t scale, float32x4_t zero_point, float32x4_t lo, float32x4_t hi) noexcept {
  const float32x4_t t = vaddq_f32(vrndnq_f32(vdivq_f32(x, scale)), zero_point);
  const float32x4_t clamped = vminq_f32(vmaxq_f32(t, lo), hi);
  return vcvtq_s32_f32(vbslq_f32(vceqq_f32(t, t), clamped, lo));
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
  const float32x4_t lo = vdupq_n_f32(b.lo), hi = vdupq_n_f32(b.hi);
  const float32x4_t s1 = vdupq_n_f32(r.scale[0]), z1 = vdupq_n_f32(r.zero_point[0]);
  auto q = [&](std::size_t i) {
    const float32x4_t s = kPerLane ? vld1q_f32(r.scale + i) : s1;
    const float32x4_t z = kPerLane ? vld1q_f32(r.zero_point + i) : z1;
    return quantize4(vld1q_f32(r.x + i), s, z, lo, hi);
  };
  std::size_t i = 0;
  for (; i + 8 <= r.n; i += 8) {
    // Values are in the type's range: truncating narrows keep them.
    const int16x8_t words = vcombine_s16(vmovn_s32(q(i)), vmovn_s32(q(i + 4)));
    if constexpr (kOut == Out::U8 || kOut == Out::I8) {
      vst1_u8(static_cast<std::uint8_t*>(r.y) + i, vreinterpret_u8_s8(vmovn_s16(words)));
    } else {
      vst1q_u16(static_cast<std::uint16_t*>(r.y) + i, vreinterpretq_u16_s16(words));
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

void quantize_run__neon(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<true>(run);
  } else {
    run_out<false>(run);
  }
}

MinMax min_max__neon(const float* x, std::size_t n) noexcept {
  float32x4_t lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = vdupq_n_f32(0.0f);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int k = 0; k < 4; ++k) {
      const float32x4_t v = vld1q_f32(x + i + 4 * k);
      lo[k] = vbslq_f32(vcltq_f32(v, lo[k]), v, lo[k]);
      hi[k] = vbslq_f32(vcgtq_f32(v, hi[k]), v, hi[k]);
    }
  }
  float l[16], h[16];
  for (int k = 0; k < 4; ++k) {
    vst1q_f32(l + 4 * k, lo[k]);
    vst1q_f32(h + 4 * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (int k = 0; k < 16; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace onemodel::opt::quantize
