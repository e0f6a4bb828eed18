// Which depthwise shapes take the unstrided in-place kernel (depthwise_stride1.hpp).
#include "optimized/kernels/conv/depthwise_stride1.hpp"

namespace onemodel::opt {

// Session 23 (Intel Xeon model 207, one thread, one Conv+Relu model per shape, against the walk
// with its padded planes): 3x3 at 112 x 112 0.68-0.71x (32 and 96 channels), at 96 0.71x, at 80
// 0.68x, at 64 0.87x, at 56 0.94-0.99x, at 20 and 14 unchanged; 7x7 (ConvNeXt) at 56 0.79x, at 28
// 0.93x.
bool depthwise_takes_stride1(Isa isa, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512 && isa != Isa::Avx2) return false;
  if (s.stride_h != 1 || s.stride_w != 1 || s.dilation_h != 1 || s.dilation_w != 1) return false;
  // 5x5 windows keep the walk: their 25 weights fill the registers, and the masked tiles at the
  // edges of a 28-wide row took 1.22x the walk's time (240 channels, Intel Xeon, session 23).
  if ((s.kernel_w != 3 && s.kernel_w != 7) || s.kernel_h != s.kernel_w) return false;
  // 3x3 rows narrower than 64 keep the walk: at 56 the in-place kernel took 0.94-0.99x the walk's
  // time alone and 1.04x inside MnasNet, where the walk's padded copy leaves each plane in the
  // first-level cache for the taps.
  const std::size_t min_w = s.kernel_w == 3 ? 64 : 16;
  if (s.pad_left >= s.kernel_w || s.out_w < min_w || s.out_h == 0) return false;
  return s.map_extents_below(std::size_t{1} << 24);
#else
  (void)isa;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
