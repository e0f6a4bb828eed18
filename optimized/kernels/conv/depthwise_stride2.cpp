// Which depthwise shapes take the stride-2 kernel (depthwise_stride2.hpp).
#include "optimized/kernels/conv/depthwise_stride2.hpp"

namespace onemodel::opt {

bool depthwise_takes_stride2(Isa isa, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512 && isa != Isa::Avx2) return false;
  if (s.stride_h != 2 || s.stride_w != 2 || s.dilation_h != 1 || s.dilation_w != 1) return false;
  if ((s.kernel_w != 3 && s.kernel_w != 5) || s.kernel_h == 0 || s.kernel_h > 7) return false;
  // Rows of 9 to 15 outputs leave lanes empty and still gain (session 21, Intel Xeon, one thread,
  // against the phase-plane walk: 240 x 5x5/2 at 28 0.70x, 96 x 3x3/2 at 24 0.72x); rows of 16 or
  // more: 96 x 3x3/2 at 112 0.52x, 144 x 5x5/2 at 56 0.74x.
  if (s.pad_left >= s.kernel_w || s.out_w < 9 || s.out_h == 0) return false;
  // Session 35 (AMD EPYC Zen 3, AVX2, eight lanes; per node in MobileNetV3-Large and
  // EfficientNet-B0, one thread, against the phase-plane walk): 14-wide outputs 0.84-0.91x (240
  // channels 3x3/2), 28-wide 1.06-1.14x fast and 0.86-0.93x exact (72 and 144 channels 5x5/2),
  // 56-wide 1.08-1.18x fast, 0.98-1.17x exact (64 and 96 channels 3x3/2): each sixteen input
  // columns take four shuffles to split and a shifted tap two more, against four or five
  // multiply-adds, so on AVX2 only rows under 28 outputs take it. (One vector per tile instead of
  // two, to keep the row taps in the 16 registers, was slower: 1.13-1.20x at 56 wide.)
  // Session 37 (Zen 3, AVX2, one thread, thread CPU us, the minimum of three runs, against the
  // walk that splits the phase planes by bands for the band kernel, depthwise_band.hpp, which came
  // in session 36): square windows of one filter a channel at 9-27 outputs a row took 1.3-1.4x the
  // walk's time (3x3/2 28 -> 14 240 channels 79 / 57 fast, 85 / 63 exact; 24 -> 12 96 channels
  // 24.6 / 18.7, 27.1 / 20.3; 40 -> 20 480 channels 112 / 86, 120 / 95; 5x5/2 28 -> 14 240
  // channels fast 130 / 95, exact 141 / 142, a shape the blocked kernel takes first on AVX2): the
  // split costs two shuffles per eight outputs of an input row, the in-place tile's split and
  // shifts about ten. So on AVX2 only other windows (not square, or a channel multiplier, which the
  // split walk does not serve) keep the in-place kernel, with rows under 28 outputs.
  if (isa == Isa::Avx2 && (s.out_w >= 28 || (s.kernel_h == s.kernel_w && s.out_channels == s.in_channels))) {
    return false;
  }
  return s.map_extents_below(std::size_t{1} << 24);
#else
  (void)isa;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
