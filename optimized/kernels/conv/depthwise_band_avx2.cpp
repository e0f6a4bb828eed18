// The stride-2 band kernel on AVX2 (depthwise_band.hpp). Compiled with the AVX2 flags of
// cmake/kernel_sources.cmake; called only on the AVX2 path.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "optimized/kernels/conv/depthwise_band.hpp"
#include "optimized/kernels/conv/fused_activation_avx2.hpp"

namespace onemodel::opt {
namespace {

// The activation of the stores: kOp through fused_activation_avx2 when kFuse, else none.
template <bool kFuse, ew::UnaryOp kOp>
struct Activation {
  fused_activation_avx2::Args args{};
  __m256 operator()(__m256 v) const noexcept {
    if constexpr (kFuse) {
      return fused_activation_avx2::apply_op<kOp>(args, v);
    } else {
      return v;
    }
  }
};

// exact-mode.md rule 1: the product rounded, then the sum rounded; fast mode one fused step.
template <bool kExact>
inline __m256 step(__m256 acc, __m256 w, __m256 x) noexcept {
  if constexpr (kExact) {
    return _mm256_add_ps(acc, _mm256_mul_ps(w, x));
  } else {
    return _mm256_fmadd_ps(w, x, acc);
  }
}

// The bias one rounded addition after the sum; exact mode stores NaN as 0x7FC00000 (rule 4); then
// the fused activation, if any, on the value the separate pass would have read.
template <bool kExact, class A>
inline void finish(float* dst, __m256 acc, const float* bias, const A& activate) noexcept {
  if (bias != nullptr) acc = _mm256_add_ps(acc, _mm256_set1_ps(*bias));
  if constexpr (kExact) {
    acc = _mm256_blendv_ps(acc, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(acc, acc, _CMP_UNORD_Q));
  }
  _mm256_storeu_ps(dst, activate(acc));
}

// R output rows from row 0 of `planes` (phase p at planes[p]) by C vectors at columns xs. Input
// row i of the tile feeds output row r through window row i - 2r; for each accumulator the rows
// come in increasing order and the columns kx increasing within a row: row-major tap order. R * C
// independent chains hide the multiply-add latency.
template <int K, int S, int R, int C, bool kExact, class A>
inline void tile(const DepthwiseBandJob& j, const float* const (&planes)[2], float* out, const std::size_t (&xs)[C],
                 const __m256 (&w)[K * K], const A& activate) noexcept {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  constexpr int kRows = (R - 1) * S + K;
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 8
    for (int kx = 0; kx < K; ++kx) {
      const float* p = planes[kx % S] + static_cast<std::ptrdiff_t>(i) * j.stride + kx / S;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const int ky = i - S * r;
        if (ky < 0 || ky >= K) continue;
        for (int c = 0; c < C; ++c) acc[r][c] = step<kExact>(acc[r][c], w[ky * K + kx], _mm256_loadu_ps(p + xs[c]));
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) finish<kExact>(out + r * j.out_w + xs[c], acc[r][c], j.bias, activate);
}

// Tiles of four rows by two vectors, then one vector; the last vector of a row moved back to end
// at out_w (its overlap recomputes the same values). Leftover rows of a band of at least four
// take one more four-row tile moved back to end at out_h, recomputing up to three rows with the
// same values: a one-row tile has only two independent chains and waits on the multiply-add
// latency (14-row maps, 3x3 at 14 x 14: 1.15x faster on Zen 3 than finishing row by row). Shorter
// bands finish row by row.
template <int K, int S, bool kExact, class A>
void run(const DepthwiseBandJob& j, const A& activate) noexcept {
  __m256 w[K * K];
  for (int t = 0; t < K * K; ++t) w[t] = _mm256_set1_ps(j.weights[t]);
  const std::size_t vectors = (j.out_w + 7) / 8;
  auto column = [&](std::size_t v) { return v * 8 + 8 <= j.out_w ? v * 8 : j.out_w - 8; };
  std::size_t oy = 0;
  for (; oy < j.out_h && j.out_h >= 4; oy += 4) {
    if (oy + 4 > j.out_h) oy = j.out_h - 4;
    const float* planes[2] = {j.planes[0] + oy * S * j.stride, j.planes[1] + oy * S * j.stride};
    float* out = j.out + oy * j.out_w;
    std::size_t v = 0;
    for (; v + 2 <= vectors; v += 2) tile<K, S, 4, 2, kExact>(j, planes, out, {column(v), column(v + 1)}, w, activate);
    for (; v < vectors; ++v) tile<K, S, 4, 1, kExact>(j, planes, out, {column(v)}, w, activate);
  }
  for (; oy < j.out_h; ++oy) {
    const float* planes[2] = {j.planes[0] + oy * S * j.stride, j.planes[1] + oy * S * j.stride};
    float* out = j.out + oy * j.out_w;
    std::size_t v = 0;
    for (; v + 2 <= vectors; v += 2) tile<K, S, 1, 2, kExact>(j, planes, out, {column(v), column(v + 1)}, w, activate);
    for (; v < vectors; ++v) tile<K, S, 1, 1, kExact>(j, planes, out, {column(v)}, w, activate);
  }
}

}  // namespace

namespace {

template <class A>
void run_with(const DepthwiseBandJob& j, const A& activate) noexcept {
  if (j.step == 1) {
    if (j.kernel == 3) {
      j.exact ? run<3, 1, true>(j, activate) : run<3, 1, false>(j, activate);
    } else {
      j.exact ? run<5, 1, true>(j, activate) : run<5, 1, false>(j, activate);
    }
  } else if (j.kernel == 3) {
    j.exact ? run<3, 2, true>(j, activate) : run<3, 2, false>(j, activate);
  } else {
    j.exact ? run<5, 2, true>(j, activate) : run<5, 2, false>(j, activate);
  }
}

}  // namespace

void depthwise_band__avx2(const DepthwiseBandJob& j) noexcept {
  if (j.activation == nullptr) return run_with(j, Activation<false, ew::UnaryOp::Relu>{});
  const ConvActivation& a = *j.activation;
  const fused_activation_avx2::Args args{a.args.op, _mm256_set1_ps(a.args.alpha), _mm256_set1_ps(a.args.beta),
                                         a.args.fast};
  fused_activation::with_op(a.args.op, [&](auto op) { run_with(j, Activation<true, decltype(op)::value>{args}); });
}

}  // namespace onemodel::opt
