// Which shapes the direct MaxPool of the AVX-512 and AVX2 paths takes (pool_max_direct.hpp).
// Compiled without ISA flags: pool_2d_f32 asks before it dispatches.
#include "optimized/kernels/pool/pool_max_direct.hpp"

namespace onemodel::opt::pool {

bool direct_max_takes(const Pool2dShape& s) noexcept {
  // Lane offsets are 32-bit (the gather's index): 16 * stride and the window span stay far below.
  constexpr std::int64_t kLimit = std::int64_t{1} << 24;
  for (const PoolAxis* a : {&s.h, &s.w}) {
    if (a->in <= 0 || a->out <= 0 || a->kernel <= 0 || a->stride <= 0 || a->dilation <= 0 || a->pad_before < 0) {
      return false;
    }
    if (a->in >= kLimit || a->out >= kLimit || a->stride >= kLimit || a->dilation >= kLimit || a->kernel >= kLimit ||
        a->pad_before >= kLimit) {
      return false;
    }
  }
  return s.w.kernel <= 64;
}

}  // namespace onemodel::opt::pool
