// The loop structure every vector path of the quantization kernels shares (quantize.hpp): one body
// per output type and scale layout, whole blocks on the path's lanes, the rest of the run on the
// scalar loop (the reference's own arithmetic), and the NaN-skipping min/max over four
// accumulators folded with strict comparisons. A path supplies only its instructions, as a traits
// struct `L`:
//   using F = ...;                          the float vector
//   static F splat(float); static F load(const float*);
//   static auto quantize(F x, F scale, F zero_point, F lo, F hi);   the clamped integers
//   template <Out kOut> static constexpr std::size_t step();        elements per stored block
//   template <Out kOut, class Q> static void store(void* y, std::size_t i, Q q);
//       stores elements i .. i + step() - 1, q(j) giving the integers of elements j .. j + lanes
//   static F lower(F v, F acc); static F higher(F v, F acc);        acc unless v is strictly
//       smaller (larger), so a NaN v leaves acc (the reference's std::min/std::max)
//   static void store_floats(float* to, F v);
//   static constexpr std::size_t kLanes;
// and optionally `template <Out kOut, bool kPerLane> static void tail(const Run&, std::size_t i)`
// for a path that finishes the run itself (AVX-512's masked lanes).
// Why each path's instructions give the reference's bits is said in its own file.
//
// Only the per-path files include this header, each compiled with its own instruction-set flags.
// Everything here is in an unnamed namespace so that every file keeps its own copy: a shared
// inline or template definition could be merged by the linker into the copy compiled with AVX
// flags and then run on a CPU without them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/quantize/quantize.hpp"

namespace onemodel::opt::quantize {
namespace {

struct Bounds {
  float lo, hi;
  std::size_t bytes;
};

// Section 1's ranges of the four stored types.
constexpr Bounds bounds_of(Out out) noexcept {
  switch (out) {
    case Out::U8: return {0.0f, 255.0f, 1};
    case Out::I8: return {-128.0f, 127.0f, 1};
    case Out::U16: return {0.0f, 65535.0f, 2};
    default: return {-32768.0f, 32767.0f, 2};
  }
}

constexpr bool is_byte(Out out) noexcept { return out == Out::U8 || out == Out::I8; }

// Elements i .. n - 1 of the run on the scalar loop.
inline void scalar_rest(const Run& r, std::size_t i) noexcept {
  if (i == r.n) return;
  Run rest = r;
  rest.x += i;
  rest.y = static_cast<std::uint8_t*>(r.y) + i * bounds_of(r.out).bytes;
  rest.n -= i;
  if (r.per_lane) {
    rest.scale += i;
    rest.zero_point += i;
  }
  quantize_run__scalar(rest);
}

template <class L, Out kOut, bool kPerLane>
void run_lanes(const Run& r) noexcept {
  constexpr Bounds b = bounds_of(kOut);
  const typename L::F lo = L::splat(b.lo), hi = L::splat(b.hi);
  const typename L::F s1 = L::splat(r.scale[0]), z1 = L::splat(r.zero_point[0]);
  auto q = [&](std::size_t j) {
    const typename L::F s = kPerLane ? L::load(r.scale + j) : s1;
    const typename L::F z = kPerLane ? L::load(r.zero_point + j) : z1;
    return L::quantize(L::load(r.x + j), s, z, lo, hi);
  };
  constexpr std::size_t kStep = L::template step<kOut>();
  std::size_t i = 0;
  for (; i + kStep <= r.n; i += kStep) L::template store<kOut>(r.y, i, q);
  if constexpr (requires { L::template tail<kOut, kPerLane>(r, i); }) {
    L::template tail<kOut, kPerLane>(r, i);
  } else {
    scalar_rest(r, i);
  }
}

template <class L, bool kPerLane>
void run_out(const Run& r) noexcept {
  switch (r.out) {
    case Out::U8: run_lanes<L, Out::U8, kPerLane>(r); break;
    case Out::I8: run_lanes<L, Out::I8, kPerLane>(r); break;
    case Out::U16: run_lanes<L, Out::U16, kPerLane>(r); break;
    case Out::I16: run_lanes<L, Out::I16, kPerLane>(r); break;
  }
}

template <class L>
void quantize_lanes(const Run& run) noexcept {
  if (run.per_lane) {
    run_out<L, true>(run);
  } else {
    run_out<L, false>(run);
  }
}

// Four accumulators per bound, each started at +0 and replaced only by a strictly smaller (larger)
// value, so none is ever -0; then the lanes and the scalar rest are folded with strict comparisons,
// which gives the reference's sequential result whatever the order (section 6, step 1).
template <class L>
MinMax min_max_lanes(const float* x, std::size_t n) noexcept {
  constexpr std::size_t kBlock = 4 * L::kLanes;
  typename L::F lo[4], hi[4];
  for (int k = 0; k < 4; ++k) lo[k] = hi[k] = L::splat(0.0f);
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t k = 0; k < 4; ++k) {
      const typename L::F v = L::load(x + i + L::kLanes * k);
      lo[k] = L::lower(v, lo[k]);
      hi[k] = L::higher(v, hi[k]);
    }
  }
  float l[kBlock], h[kBlock];
  for (std::size_t k = 0; k < 4; ++k) {
    L::store_floats(l + L::kLanes * k, lo[k]);
    L::store_floats(h + L::kLanes * k, hi[k]);
  }
  MinMax m = min_max__scalar(x + i, n - i);
  for (std::size_t k = 0; k < kBlock; ++k) {
    if (l[k] < m.lo) m.lo = l[k];
    if (h[k] > m.hi) m.hi = h[k];
  }
  return m;
}

}  // namespace
}  // namespace onemodel::opt::quantize
