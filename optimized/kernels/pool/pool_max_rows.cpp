// Which shapes the two-pass MaxPool of the AVX-512 and AVX2 paths takes (pool_max_rows.hpp).
// Compiled without ISA flags: pool_2d_f32 asks before it dispatches.
#include "optimized/kernels/pool/pool_max_rows.hpp"

namespace onemodel::opt::pool {

bool rows_max_takes(const Pool2dShape& s) noexcept {
  constexpr std::int64_t kLimit = std::int64_t{1} << 24;
  for (const PoolAxis* a : {&s.h, &s.w}) {
    if (a->in <= 0 || a->out <= 0 || a->kernel <= 0 || a->stride <= 0 || a->dilation != 1 || a->pad_before < 0) {
      return false;
    }
    if (a->in >= kLimit || a->out >= kLimit || a->stride >= kLimit || a->pad_before >= kLimit) return false;
  }
  if (s.w.kernel != 3 || (s.w.stride != 1 && s.w.stride != 2) || s.w.pad_before > 2 || s.h.kernel > 64) return false;
  // The first pass keeps h.in rows of the output width (rounded up to 16) per thread: bounded, so
  // a hostile shape (a huge right padding widening the output of a tall, thin input) cannot make
  // the kernel ask for more than 16 MiB; such shapes take the direct kernel, which keeps nothing.
  constexpr std::int64_t kMaxRowMaxima = std::int64_t{1} << 22;
  const std::int64_t row_floats = (s.w.out + 15) / 16 * 16;
  return row_floats <= kMaxRowMaxima / s.h.in;
}

}  // namespace onemodel::opt::pool
