// The AVX2 MaxPool kernels (spec/ops/products-conv.md section 8.2): the two-pass kernel
// (pool_max_rows.hpp, the loops of pool_max_rows_body.hpp) and the direct one (pool_max_direct.hpp,
// pool_max_direct_body.hpp) on eight lanes: the AVX-512 path's folds in the same order, so the same
// bits. One lane type serves both. AVX2 has no mask registers: a lane set is kept as bits and as
// the lane mask vmaskmovps takes, masked loads fill with a blend, and where every lane is inside
// (the interior of a row, the common case) the loads are plain ones. Compiled with the AVX2 flags of
// cmake/kernel_sources.cmake; called only on the AVX2 path.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/pool/pool_max_direct.hpp"
#include "optimized/kernels/pool/pool_max_direct_body.hpp"
#include "optimized/kernels/pool/pool_max_rows.hpp"
#include "optimized/kernels/pool/pool_max_rows_body.hpp"

namespace onemodel::opt::pool {
namespace {

struct Avx2Max {
  static constexpr std::int64_t kLanes = 8;
  using Vec = __m256;

  // A lane set as bits (lane t is bit t) and as a lane mask (all bits set in the lanes of the set),
  // made once per block, so the loads do not rebuild it.
  struct Mask {
    unsigned bits;
    __m256i lanes;
  };
  static __m256i lane_mask(unsigned bits) noexcept {
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), bit), bit);
  }
  // Lanes t in [0, 8) with lo <= t < hi.
  static Mask between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
    unsigned bits = 0;
    if (hi > 0 && lo < kLanes && lo < hi) {
      const std::ptrdiff_t a = lo < 0 ? 0 : lo, b = hi > kLanes ? kLanes : hi;
      bits = ((1u << (b - a)) - 1u) << a;
    }
    return {bits, lane_mask(bits)};
  }
  static Vec minus_inf() noexcept { return _mm256_set1_ps(-__builtin_inff()); }
  static void store(float* p, const Mask& keep, Vec v) noexcept {
    if (keep.bits == 0xFFu) return _mm256_storeu_ps(p, v);
    _mm256_maskstore_ps(p, keep.lanes, v);
  }
  static unsigned minus_inf_lanes(Vec v, const Mask& keep) noexcept {
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, minus_inf(), _CMP_EQ_OQ))) & keep.bits;
  }
  // vmaxps returns its second operand when either is NaN or both are zero: `v > acc ? v : acc`.
  static Vec fold(Vec acc, Vec v) noexcept { return _mm256_max_ps(v, acc); }

  // The two-pass kernel (pool_max_rows_body.hpp).
  // Lanes outside `keep` read nothing (vmaskmovps suppresses faults there) and hold `fill`. The
  // address is formed as an integer: for those lanes it may lie outside the row. A whole block, the
  // third load of stride 2 (lane 0 only) and an empty set take plain loads.
  static Vec load(const float* row, std::ptrdiff_t at, const Mask& keep, Vec fill) noexcept {
    if (keep.bits == 0) return fill;
    const std::uintptr_t address =
        reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(at) * sizeof(float);
    const float* p = reinterpret_cast<const float*>(address);
    if (keep.bits == 0xFFu) return _mm256_loadu_ps(p);
    if (keep.bits == 1u) return _mm256_blend_ps(fill, _mm256_broadcast_ss(p), 0x01);
    return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, keep.lanes), _mm256_castsi256_ps(keep.lanes));
  }
  static Vec loadu(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void storeu(float* p, Vec v) noexcept { _mm256_storeu_ps(p, v); }
  // The even elements of the 16 floats in a and b, in order: the in-lane shuffle gives
  // a0 a2 b0 b2 | a4 a6 b4 b6, the 64-bit permute moves the middle quarters.
  static Vec even(Vec a, Vec b) noexcept {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
                                                  _MM_SHUFFLE(3, 1, 2, 0)));
  }
  static Vec odd(Vec a, Vec b) noexcept {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))),
                                                  _MM_SHUFFLE(3, 1, 2, 0)));
  }
  // The even and odd columns of low and high, and the even ones moved a lane on, the 17th column
  // (lane 0 of next) entering the last lane.
  static void stride2_columns(Vec low, Vec high, Vec next, Vec& c0, Vec& c1, Vec& c2) noexcept {
    c0 = even(low, high);
    c1 = odd(low, high);
    c2 = _mm256_permutevar8x32_ps(_mm256_blend_ps(c0, next, 0x01), _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0));
  }

  // Stride-2 row maxima in the lane order 0 1 4 5 2 3 6 7 (pool_max_rows_body.hpp,
  // permuted_stride2): the in-lane shuffles of `even` and `odd` alone give the even and odd columns
  // so, and the same shuffle of the floats two columns on gives the third window column, so a
  // block inside the row takes four plain loads and three in-lane shuffles instead of the two
  // 64-bit permutes and the cross-lane rotation (SqueezeNet's 64 x 111 x 111 3x3/2 pool on Zen 3,
  // one thread: 236 -> 161 us). permute swaps the middle 64-bit quarters: its own inverse.
  static constexpr bool kPermutedStride2 = true;
  static void stride2_columns_permuted(const float* p, Vec& c0, Vec& c1, Vec& c2) noexcept {
    const Vec low = _mm256_loadu_ps(p), high = _mm256_loadu_ps(p + 8);
    c0 = _mm256_shuffle_ps(low, high, _MM_SHUFFLE(2, 0, 2, 0));
    c1 = _mm256_shuffle_ps(low, high, _MM_SHUFFLE(3, 1, 3, 1));
    c2 = _mm256_shuffle_ps(_mm256_loadu_ps(p + 2), _mm256_loadu_ps(p + 10), _MM_SHUFFLE(2, 0, 2, 0));
  }
  static Vec permute(Vec v) noexcept {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
  }

  // The direct kernel (pool_max_direct_body.hpp). For a block of output columns [ox0, ox0 + n) and
  // tap column kx, lane j wants input column (ox0 + j) * stride - pad + kx * dilation; the read
  // starts at the first lane whose column lies in [0, in) (`first`, its column `offset`), so no
  // address outside the row is formed.
  struct Tap {
    unsigned lanes;       // lanes with an element inside the row (0: the tap reads nothing)
    bool plain;           // every lane inside, and at stride 2 the element after the span too
    int span;             // elements read from the first lane's: stride 1 the lanes, stride 2 2 * lanes - 1
    std::int64_t offset;  // the first such lane's column
    __m256i keep;         // `lanes` as a lane mask
    __m256i low, high;    // the elements read from offset and from offset + 8 (stride 1: low only)
    __m256i index;        // per lane: j - first (strides 1 and 2, into the elements read), stride * (j - first)
  };
  // Requires 1 <= n <= 8, stride >= 1 and 8 * stride within int32.
  static Tap tap_column(std::int64_t in, std::int64_t pad_before, std::int64_t stride, std::int64_t dilation,
                        std::int64_t ox0, std::int64_t n, std::int64_t kx) noexcept {
    Tap t{0, false, 0, 0, _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
          _mm256_setzero_si256()};
    const std::int64_t c0 = ox0 * stride - pad_before + kx * dilation;
    const std::int64_t first = c0 >= 0 ? 0 : (-c0 + stride - 1) / stride;
    if (in - 1 - c0 < 0) return t;
    std::int64_t end = (in - 1 - c0) / stride + 1;
    if (end > n) end = n;
    if (end <= first) return t;
    const std::int64_t count = end - first;
    t.lanes = ((1u << end) - 1u) & ~((1u << first) - 1u);
    t.offset = c0 + first * stride;
    t.keep = lane_mask(t.lanes);
    t.span = static_cast<int>(stride == 2 ? 2 * count - 1 : count);
    const int low = t.span < 8 ? t.span : 8;
    t.low = lane_mask((1u << low) - 1u);
    t.high = lane_mask(t.span > 8 ? (1u << (t.span - 8)) - 1u : 0u);
    t.plain = t.lanes == 0xFFu && (stride != 2 || t.offset + 16 <= in);
    const __m256i from_first =
        _mm256_sub_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(first)));
    t.index = stride <= 2 ? from_first : _mm256_mullo_epi32(from_first, _mm256_set1_epi32(static_cast<int>(stride)));
    return t;
  }
  // The tap column's 8 lanes from `row` (the input row's first element), `fill` where no element is
  // read. kStride 1 and 2 read the elements from the first valid lane's and move them into place
  // (lane j takes element j - first; the lanes before `first` wrap around and are set back to the
  // fill); 0 stands for any other stride (a gather).
  template <int kStride>
  __attribute__((always_inline)) static Vec load_tap(const Tap& t, const float* row, Vec fill) noexcept {
    const float* p = row + t.offset;
    const __m256 keep = _mm256_castsi256_ps(t.keep);
    if constexpr (kStride == 1) {
      if (t.plain) return _mm256_loadu_ps(p);
      return _mm256_blendv_ps(fill, _mm256_permutevar8x32_ps(_mm256_maskload_ps(p, t.low), t.index), keep);
    } else if constexpr (kStride == 2) {
      if (t.plain) return even(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8));
      // p + 8 is formed only when the span reaches it (it may lie past the row's end otherwise).
      const __m256 b = t.span > 8 ? _mm256_maskload_ps(p + 8, t.high) : _mm256_setzero_ps();
      return _mm256_blendv_ps(fill, _mm256_permutevar8x32_ps(even(_mm256_maskload_ps(p, t.low), b), t.index), keep);
    } else {
      return _mm256_mask_i32gather_ps(fill, p, t.index, keep, 4);
    }
  }
  // A window row is folded into the whole register or not at all.
  using Take = __m256;
  static Take take(bool inside) noexcept {
    return inside ? _mm256_castsi256_ps(_mm256_set1_epi32(-1)) : _mm256_setzero_ps();
  }
  static Vec fold(Vec acc, Take take, Vec v) noexcept { return _mm256_blendv_ps(acc, _mm256_max_ps(v, acc), take); }
};

}  // namespace

void max_planes_rows__avx2(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  rows_body::max_planes_rows<Avx2Max>(s, x, y, planes);
}

void max_planes_direct__avx2(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept {
  direct_body::max_planes_direct<Avx2Max>(s, x, y, planes);
}

}  // namespace onemodel::opt::pool
