// The two-pass AVX-512 MaxPool (pool_max_rows.hpp): the loops of pool_max_rows_body.hpp on sixteen
// lanes. Compiled with the AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512
// path.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/pool/pool_max_rows.hpp"
#include "optimized/kernels/pool/pool_max_rows_body.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt::pool {
namespace {

struct Avx512Rows {
  static constexpr std::int64_t kLanes = row_lanes::kLanes;
  using Vec = __m512;
  using Mask = __mmask16;
  static Mask between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept { return row_lanes::between(lo, hi); }
  static Vec minus_inf() noexcept { return _mm512_set1_ps(-__builtin_inff()); }
  static Vec load(const float* row, std::ptrdiff_t at, Mask keep, Vec fill) noexcept {
    return row_lanes::load(row, at, keep, fill);
  }
  static Vec loadu(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void storeu(float* p, Vec v) noexcept { _mm512_storeu_ps(p, v); }
  static void store(float* p, Mask keep, Vec v) noexcept { _mm512_mask_storeu_ps(p, keep, v); }
  // vmaxps returns its second operand when either is NaN or both are zero. The all-lanes
  // zero-masked form: the unmasked one makes GCC 12 warn (-Wmaybe-uninitialized on its undefined
  // pass-through operand), an error in the Checked build.
  static Vec fold(Vec acc, Vec v) noexcept { return _mm512_maskz_max_ps(0xFFFF, v, acc); }
  static unsigned minus_inf_lanes(Vec v, Mask keep) noexcept {
    return _mm512_mask_cmp_ps_mask(keep, v, minus_inf(), _CMP_EQ_OQ);
  }
  // The even and odd elements of the 32 columns in low and high, and the even ones moved a lane on,
  // the 33rd column (lane 0 of next) entering the last lane.
  static void stride2_columns(Vec low, Vec high, Vec next, Vec& c0, Vec& c1, Vec& c2) noexcept {
    const __m512i even_index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd_index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    c0 = _mm512_permutex2var_ps(low, even_index, high);
    c1 = _mm512_permutex2var_ps(low, odd_index, high);
    c2 = _mm512_castsi512_ps(
        _mm512_maskz_alignr_epi32(0xFFFF, _mm512_castps_si512(next), _mm512_castps_si512(c0), 1));
  }
};

}  // namespace

void max_planes_rows__avx512(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  rows_body::max_planes_rows<Avx512Rows>(s, x, y, planes);
}

}  // namespace onemodel::opt::pool
