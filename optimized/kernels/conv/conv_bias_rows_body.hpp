// The bias step and the one-pass epilogue of conv_bias_rows.hpp, written once over a lane type so
// that the AVX-512 path (sixteen lanes, conv_bias_rows_avx512.cpp) and the AVX2 path (eight lanes,
// conv_bias_rows_avx2.cpp) run the same steps on every value: the bias one rounded addition (in
// exact mode then the canonical NaN), the residual one rounded addition, then the activation as
// the element-wise kernel computes it (fused_activation_avx512.hpp, fused_activation_avx2.hpp).
// Each per-path file defines its lane traits in an anonymous namespace, so every function here, a
// template over them, is instantiated inside that file only: code built with the AVX-512 flags is
// never merged by the linker with the AVX2 file's. Included by per-ISA kernel files only.
//
// Lane traits P provide: kLanes; Vec (kLanes floats); Tail (the first n lanes, 0 < n < kLanes)
// and tail(n); loadu(p), storeu(p, v); load_tail(p, t) (the lanes of t from p, the others +0 and
// read nothing), store_tail(p, t, v) (the lanes of t only); splat(x); add(a, b) (one rounded
// addition per lane, a's NaN where both are NaN, as vaddps); canonical(v) (0x7FC00000 where v is
// NaN); Args and args_of(const ConvActivation&); apply_op<kOp>(args, v) (the activation kOp, every
// NaN 0x7FC00000).
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt::conv_bias_rows_body {

// One value per row, the rows next to each other (a 1 x 1 map: C is a column of consecutive
// floats). Row by row, each value was a one-lane masked load and store, and the epilogue took a
// fifth of a squeeze-and-excitation convolution's time (672 -> 168 channels).
inline bool one_value_rows(std::ptrdiff_t ldc, std::size_t cols) noexcept { return cols == 1 && ldc == 1; }

// conv_bias_rows__<isa>: c[r][j] = c[r][j] + bias[r], in exact mode every NaN then canonical.
template <class P>
void bias_rows(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols, bool exact) {
  constexpr std::size_t kLanes = P::kLanes;
  if (one_value_rows(ldc, cols)) {
    // A 1 x 1 map: rows taken kLanes at a time, each lane its own row's bias; the same step.
    const std::size_t full_rows = rows / kLanes * kLanes;
    for (std::size_t r = 0; r < full_rows; r += kLanes) {
      const typename P::Vec v = P::add(P::loadu(c + r), P::loadu(bias + r));
      P::storeu(c + r, exact ? P::canonical(v) : v);
    }
    if (full_rows < rows) {
      const typename P::Tail t = P::tail(rows - full_rows);
      const typename P::Vec v = P::add(P::load_tail(c + full_rows, t), P::load_tail(bias + full_rows, t));
      P::store_tail(c + full_rows, t, exact ? P::canonical(v) : v);
    }
    return;
  }
  const std::size_t full = cols / kLanes * kLanes;
  const typename P::Tail tail = P::tail(cols - full);
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    const typename P::Vec b = P::splat(bias[r]);
    if (exact) {
      for (std::size_t j = 0; j < full; j += kLanes) P::storeu(line + j, P::canonical(P::add(P::loadu(line + j), b)));
      if (full < cols) P::store_tail(line + full, tail, P::canonical(P::add(P::load_tail(line + full, tail), b)));
    } else {
      for (std::size_t j = 0; j < full; j += kLanes) P::storeu(line + j, P::add(P::loadu(line + j), b));
      if (full < cols) P::store_tail(line + full, tail, P::add(P::load_tail(line + full, tail), b));
    }
  }
}

template <class P, bool kResidual, ew::UnaryOp kOp>
void bias_residual_activation(float* c, std::ptrdiff_t ldc, const float* bias, const float* residual,
                              std::size_t plane, std::size_t rows, std::size_t cols, const typename P::Args& activation) {
  constexpr std::size_t kLanes = P::kLanes;
  if (one_value_rows(ldc, cols) && (!kResidual || plane == 1)) {
    // A 1 x 1 map (the squeeze-and-excitation convolutions): rows taken kLanes at a time, each
    // lane its own row's bias and residual, then the activation; the same steps on every value.
    const std::size_t full_rows = rows / kLanes * kLanes;
    for (std::size_t r = 0; r < full_rows; r += kLanes) {
      typename P::Vec v = P::add(P::loadu(c + r), P::loadu(bias + r));
      if constexpr (kResidual) v = P::add(v, P::loadu(residual + r));
      P::storeu(c + r, P::template apply_op<kOp>(activation, v));
    }
    if (full_rows < rows) {
      const typename P::Tail t = P::tail(rows - full_rows);
      typename P::Vec v = P::add(P::load_tail(c + full_rows, t), P::load_tail(bias + full_rows, t));
      if constexpr (kResidual) v = P::add(v, P::load_tail(residual + full_rows, t));
      P::store_tail(c + full_rows, t, P::template apply_op<kOp>(activation, v));
    }
    return;
  }
  const std::size_t full = cols / kLanes * kLanes;
  const typename P::Tail tail = P::tail(cols - full);
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    const float* res = kResidual ? residual + r * plane : nullptr;
    const typename P::Vec b = P::splat(bias[r]);
    for (std::size_t j = 0; j < full; j += kLanes) {
      typename P::Vec v = P::add(P::loadu(line + j), b);
      if constexpr (kResidual) v = P::add(v, P::loadu(res + j));
      P::storeu(line + j, P::template apply_op<kOp>(activation, v));
    }
    if (full < cols) {
      typename P::Vec v = P::add(P::load_tail(line + full, tail), b);
      if constexpr (kResidual) v = P::add(v, P::load_tail(res + full, tail));
      P::store_tail(line + full, tail, P::template apply_op<kOp>(activation, v));
    }
  }
}

// conv_bias_residual_activation_rows__<isa>: the activation and the residual's presence chosen
// once per call.
template <class P>
void bias_residual_activation_rows(float* c, std::ptrdiff_t ldc, const float* bias, const float* residual,
                                   std::size_t plane, std::size_t rows, std::size_t cols,
                                   const ConvActivation& activation) {
  const typename P::Args args = P::args_of(activation);
  fused_activation::with_op(args.op, [&](auto op) {
    if (residual != nullptr) {
      bias_residual_activation<P, true, decltype(op)::value>(c, ldc, bias, residual, plane, rows, cols, args);
    } else {
      bias_residual_activation<P, false, decltype(op)::value>(c, ldc, bias, nullptr, plane, rows, cols, args);
    }
  });
}

}  // namespace onemodel::opt::conv_bias_rows_body
