// Which depthwise shapes take the channel-blocked kernel (depthwise_blocked.hpp).
#include "optimized/kernels/conv/depthwise_blocked.hpp"

namespace onemodel::opt {

bool depthwise_takes_blocked(Isa isa, bool exact, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512 && isa != Isa::Avx2) return false;
  if (s.taps() == 0 || s.taps() > 64 || s.out_plane() == 0) return false;
  const std::size_t ph = s.padded_h(), pw = s.padded_w();
  if (ph > kDepthwiseBlockMaxTileFloats || pw > kDepthwiseBlockMaxTileFloats / kDepthwiseBlockLanes / ph) return false;
  if (s.out_plane() > kDepthwiseBlockMaxTileFloats / kDepthwiseBlockLanes) return false;
  // bench_conv --depthwise-blocked on this CPU (AMD EPYC Zen 4, process CPU time, loaded machine):
  // the blocked kernel took 0.45-0.8x the plane walk's time on 7-wide outputs (3x3, 5x5, 7x7) and
  // on 14-wide outputs of a 7x7 kernel; 0.9-1.1x on 14-wide outputs of 3x3 and 5x5 kernels (kept
  // on the walk); 1.1-1.7x on 28-wide and wider outputs. Session 22 (Intel Xeon, one thread), once
  // the kernel's buffers were 64-byte aligned: unstrided 14-wide outputs 0.67-0.86x the walk's time
  // (480 and 672 channels 5x5, 384 and 576 3x3); stride 2 to 14-wide outputs 1.05x (the in-place
  // stride-2 kernel keeps those) and 28-wide outputs 1.17-1.34x.
  if (s.out_w <= 8) return true;
  // Session 35 (AMD EPYC Zen 3, AVX2, blocks of 8 channels; per node in MobileNetV3-Large and
  // EfficientNet-B0, one thread, blocked / walk): unstrided 14-wide rows of 3x3 kernels 1.29-1.35x
  // exact, 1.42-1.55x fast (184-672 channels), of 5x5 kernels 0.91x exact, 1.13-1.19x fast (480 and
  // 672): on AVX2 they take the blocked kernel only for 5x5 and larger in exact mode. (7-wide
  // outputs: 0.51-0.66x; 28-wide 5x5 exact 0.99-1.01x, kept.)
  // Session 37 (AMD EPYC Zen 3, one thread, thread CPU us, the minimum of three runs, blocked /
  // walk), once the blocked kernel stored whole vectors and unrolled its 3x3 and 5x5 tiles: 14-wide
  // rows of 5x5 kernels unstrided fast 106 / 130 (480 channels), 151 / 182 (672), exact 127 / 217,
  // 175 / 303; at stride 2 (240 channels, 28 -> 14) fast 103 / 129, exact 105 / 142. 3x3 kernels
  // stay with the walk: 14 wide unstrided fast 1.03-1.05x, exact 0.97-0.99x (184-672 channels);
  // 28 -> 14 at stride 2 fast 1.08x, exact 1.02x (240 channels). So on AVX2 the 9-15 wide rows
  // take the blocked kernel for 5x5 (25 to 48 taps) at column stride 1 or 2, in both modes.
  if (isa == Isa::Avx2 && s.out_w < 16 && s.taps() < 49) return s.taps() >= 25 && s.stride_w <= 2;
  if (s.out_w < 16 && (s.stride_w == 1 || s.taps() >= 49)) return true;
  // Session 29 (AMD EPYC Zen 4, one thread, us per call, walk / blocked, unstrided): 7x7 at 28
  // wide fast 264 / 226 (192 channels), then 32 wide 153 / 173, 48 311 / 325, 56 462 / 441, 64
  // 522 / 694, so fast mode takes the blocked kernel for 7x7 rows under 32. In exact mode the
  // walk's separate multiply and add per tap cost much more than in fast (7x7 at 56: 733 against
  // 462) while the blocked kernel's sixteen channels are independent sums (445 either way): 7x7
  // at 28, 48, 56, 64 exact 288 / 228, 477 / 330, 733 / 445, 841 / 697, only 32 wide 163 / 174;
  // 5x5 wins where a row fills its last 16-column vector partly (20, 24, 28, 40, 56 wide: 296 /
  // 181, 92 / 67, 203 / 177, 232 / 193, 473 / 420) and loses or ties where it fills them all (32:
  // 127 / 162, 64: 499 / 646, 48 and 112 1.01). 3x3 rows stay with the walk in both modes (28 wide
  // exact 73 / 107).
  const bool unstrided = s.stride_w == 1 && s.stride_h == 1;
  if (unstrided && s.taps() >= 49) return exact || s.out_w < 32;
  if (exact && unstrided && s.taps() >= 25) return s.out_w % 16 != 0;
  return false;
#else
  (void)isa;
  (void)exact;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
