// Which depthwise shapes take the channel-blocked kernel (depthwise_blocked.hpp).
#include "optimized/kernels/conv/depthwise_blocked.hpp"

namespace onemodel::opt {

bool depthwise_takes_blocked(Isa isa, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512) return false;
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
  return s.out_w <= 8 || (s.out_w < 16 && (s.stride_w == 1 || s.taps() >= 49));
#else
  (void)isa;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
