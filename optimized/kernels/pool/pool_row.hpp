// Per-path row loop of pool_2d_f32 (optimized/kernels/pool/pool.hpp): for i < count,
//   y[i] = fold over r < nrows, k < kw (in that order) of rows[r][i * sw + k * dw]
// from -inf by `acc = (v > acc) ? v : acc` (max) or from +0 by `acc = acc + v` (sum). Lanes hold
// different outputs and each output's taps are folded in (h, w) order, one operation per tap, so
// every path gives the scalar loop's bits (exact-mode.md rules 1-3). The caller guarantees every
// element read is inside the input row (with sw == 2 the vector loads also read the element after
// the last tap of each lane's window).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

#include "optimized/kernels/pool/pool.hpp"

namespace onemodel::opt::pool {

using PoolRowFn = void (*)(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw,
                           std::int64_t sw, std::int64_t dw, std::int64_t count, float* y) noexcept;

#define ONEMODEL_POOL_VARIANT(suffix, isa, name)                                                              \
  void pool_row_f32__##suffix(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw,     \
                              std::int64_t sw, std::int64_t dw, std::int64_t count, float* y) noexcept;
#include "optimized/kernels/pool/pool_list.inc"

// One variant of the family (kernel_registry.hpp), from pool_list.inc.
struct Variant {
  std::string_view name;
  Isa isa;
  PoolRowFn row;
};

// The registry: every variant this build has, best first, scalar last.
std::span<const Variant> variants() noexcept;

// The loop shared by the paths, over a lane type L (width, init, load, combine, store). Two
// blocks of L::kWidth outputs at once give two independent dependency chains.
template <class L, bool IsMax>
inline void pool_row_body(const float* const* rows, std::int64_t nrows, std::int64_t kw, std::int64_t sw,
                          std::int64_t dw, std::int64_t count, float* y) noexcept {
  constexpr std::int64_t W = L::kWidth;
  std::int64_t i = 0;
  for (; i + 2 * W <= count; i += 2 * W) {
    auto a0 = L::template init<IsMax>();
    auto a1 = L::template init<IsMax>();
    for (std::int64_t r = 0; r < nrows; ++r) {
      const float* p = rows[r] + i * sw;
      for (std::int64_t k = 0; k < kw; ++k) {
        a0 = L::template combine<IsMax>(a0, L::load(p + k * dw, sw));
        a1 = L::template combine<IsMax>(a1, L::load(p + k * dw + W * sw, sw));
      }
    }
    L::store(y + i, a0);
    L::store(y + i + W, a1);
  }
  for (; i + W <= count; i += W) {
    auto a0 = L::template init<IsMax>();
    for (std::int64_t r = 0; r < nrows; ++r) {
      const float* p = rows[r] + i * sw;
      for (std::int64_t k = 0; k < kw; ++k) a0 = L::template combine<IsMax>(a0, L::load(p + k * dw, sw));
    }
    L::store(y + i, a0);
  }
  if constexpr (requires(const float* q, float* out, std::int64_t n) {
                  L::load_partial(q, n, n);
                  L::store_partial(out, L::template init<IsMax>(), n);
                }) {
    // A lane type with masked loads and stores (AVX-512) runs the last count - i < W outputs in one
    // more vector step; masked-off lanes read and write nothing, so the caller's bounds still hold.
    if (i < count) {
      const std::int64_t left = count - i;
      auto a0 = L::template init<IsMax>();
      for (std::int64_t r = 0; r < nrows; ++r) {
        const float* p = rows[r] + i * sw;
        for (std::int64_t k = 0; k < kw; ++k) a0 = L::template combine<IsMax>(a0, L::load_partial(p + k * dw, sw, left));
      }
      L::store_partial(y + i, a0, left);
    }
    return;
  }
  for (; i < count; ++i) {
    float a = IsMax ? -__builtin_inff() : 0.0f;
    for (std::int64_t r = 0; r < nrows; ++r) {
      const float* p = rows[r] + i * sw;
      for (std::int64_t k = 0; k < kw; ++k) {
        const float v = p[k * dw];
        if constexpr (IsMax) {
          a = (v > a) ? v : a;
        } else {
          a = a + v;
        }
      }
    }
    y[i] = a;
  }
}

template <class L>
inline void pool_row(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw, std::int64_t sw,
                     std::int64_t dw, std::int64_t count, float* y) noexcept {
  if (kind == PoolKind::Max) {
    pool_row_body<L, true>(rows, nrows, kw, sw, dw, count, y);
  } else {
    pool_row_body<L, false>(rows, nrows, kw, sw, dw, count, y);
  }
}

}  // namespace onemodel::opt::pool
