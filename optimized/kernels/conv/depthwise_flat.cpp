// Which shapes the flattened-plane depthwise kernel takes (depthwise_flat.hpp).
#include "optimized/kernels/conv/depthwise_flat.hpp"

namespace onemodel::opt {

bool depthwise_flat_fits(const Conv2dShape& s) noexcept {
  return s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1 && s.out_h == s.in_h &&
         s.out_w == s.in_w && s.in_w > 0 && s.taps() > 0 && s.taps() <= kDepthwiseFlatMaxTaps &&
         s.out_plane() <= kDepthwiseFlatMaxPlane && s.in_channels > 0 && s.out_channels % s.in_channels == 0;
}

// Session 41 (Intel Xeon, AVX-512, one thread, per node in the models, medians of 100 calls
// alternated with the channel-blocked kernel): fast mode, 3x3 windows at 14 x 14 0.76-0.79x the
// blocked kernel's time (MobileNetV3-Large's 480 and 672 channels), 0.89-0.93x (EfficientNet-B0's
// 480, MnasNet's 480 and 576), at 7 x 7 0.90-0.92x (1152); 5x5 windows 1.45-1.5x (480 channels at
// 14 x 14, 1152 at 7 x 7: 25 unaligned masked loads per output vector against the blocked kernel's
// aligned loads of sixteen channels). Exact mode mixed on 3x3: 0.85-0.90x at 480 and 672 channels,
// 1.08-1.13x at 184 and 200, so exact mode keeps the blocked kernel. Whole rows within the VM's
// noise (MobileNetV3, MnasNet, EfficientNet-B0, ab_rows, three rounds).
bool depthwise_takes_flat(Isa isa, bool exact, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  return isa == Isa::Avx512 && !exact && depthwise_flat_fits(s) && s.in_w < 16 && s.taps() <= 9;
#else
  (void)isa;
  (void)exact;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
