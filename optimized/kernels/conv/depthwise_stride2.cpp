// Which depthwise shapes take the stride-2 kernel (depthwise_stride2.hpp).
#include "optimized/kernels/conv/depthwise_stride2.hpp"

namespace onemodel::opt {

bool depthwise_takes_stride2(Isa isa, const Conv2dShape& s) noexcept {
#if defined(__x86_64__)
  if (isa != Isa::Avx512) return false;
  if (s.stride_h != 2 || s.stride_w != 2 || s.dilation_h != 1 || s.dilation_w != 1) return false;
  if ((s.kernel_w != 3 && s.kernel_w != 5) || s.kernel_h == 0 || s.kernel_h > 7) return false;
  if (s.pad_left >= s.kernel_w || s.out_w < 16 || s.out_h == 0) return false;
  constexpr std::size_t kLimit = std::size_t{1} << 24;
  return s.in_w < kLimit && s.in_h < kLimit && s.out_w < kLimit && s.out_h < kLimit && s.pad_top < kLimit;
#else
  (void)isa;
  (void)s;
  return false;
#endif
}

}  // namespace onemodel::opt
