// Which depthwise shapes take the stride-2 kernel (depthwise_stride2.hpp).
#include "optimized/kernels/conv/depthwise_stride2.hpp"

namespace onemodel::opt {

bool depthwise_takes_stride2(Isa isa, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512) return false;
  if (s.stride_h != 2 || s.stride_w != 2 || s.dilation_h != 1 || s.dilation_w != 1) return false;
  if ((s.kernel_w != 3 && s.kernel_w != 5) || s.kernel_h == 0 || s.kernel_h > 7) return false;
  // Rows of 9 to 15 outputs leave lanes empty and still gain (session 21, Intel Xeon, one thread,
  // against the phase-plane walk: 240 x 5x5/2 at 28 0.70x, 96 x 3x3/2 at 24 0.72x); rows of 16 or
  // more: 96 x 3x3/2 at 112 0.52x, 144 x 5x5/2 at 56 0.74x.
  if (s.pad_left >= s.kernel_w || s.out_w < 9 || s.out_h == 0) return false;
  return s.map_extents_below(std::size_t{1} << 24);
#else
  (void)isa;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
