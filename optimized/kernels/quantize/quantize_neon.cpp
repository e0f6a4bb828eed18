// The NEON path of the quantization kernels (quantize.hpp), 4 lanes (aarch64). The x86 path's
// sequence (quantize_sse.cpp gives why each step is the reference's bits) with two differences
// of the instruction set: FRINTN (vrndnq_f32) rounds to nearest even whatever FPCR's rounding
// mode; FMAX/FMIN return NaN when either operand is NaN, so the NaN lanes are selected to the
// type's smallest value explicitly (a NaN never equals itself), and the min/max reduction takes
// v only where v < acc (false on NaN), as the reference's std::min. In-range integers narrow
// exactly with XTN. The loops, the scalar rest and the min/max fold are quantize_lanes.hpp's.
#include <arm_neon.h>

#include "optimized/kernels/quantize/quantize_lanes.hpp"

namespace onemodel::opt::quantize {
namespace {

struct NeonLanes {
  using F = float32x4_t;
  static constexpr std::size_t kLanes = 4;
  static F splat(float v) noexcept { return vdupq_n_f32(v); }
  static F load(const float* p) noexcept { return vld1q_f32(p); }
  static int32x4_t quantize(F x, F scale, F zero_point, F lo, F hi) noexcept {
    const F t = vaddq_f32(vrndnq_f32(vdivq_f32(x, scale)), zero_point);
    const F clamped = vminq_f32(vmaxq_f32(t, lo), hi);
    return vcvtq_s32_f32(vbslq_f32(vceqq_f32(t, t), clamped, lo));
  }
  template <Out kOut>
  static constexpr std::size_t step() noexcept { return 8; }
  template <Out kOut, class Q>
  static void store(void* y, std::size_t i, Q q) noexcept {
    // Values are in the type's range: truncating narrows keep them.
    const int16x8_t words = vcombine_s16(vmovn_s32(q(i)), vmovn_s32(q(i + 4)));
    if constexpr (is_byte(kOut)) {
      vst1_u8(static_cast<std::uint8_t*>(y) + i, vreinterpret_u8_s8(vmovn_s16(words)));
    } else {
      vst1q_u16(static_cast<std::uint16_t*>(y) + i, vreinterpretq_u16_s16(words));
    }
  }
  static F lower(F v, F acc) noexcept { return vbslq_f32(vcltq_f32(v, acc), v, acc); }
  static F higher(F v, F acc) noexcept { return vbslq_f32(vcgtq_f32(v, acc), v, acc); }
  static void store_floats(float* to, F v) noexcept { vst1q_f32(to, v); }
};

}  // namespace

void quantize_run__neon(const Run& run) noexcept { quantize_lanes<NeonLanes>(run); }

MinMax min_max__neon(const float* x, std::size_t n) noexcept { return min_max_lanes<NeonLanes>(x, n); }

}  // namespace onemodel::opt::quantize
