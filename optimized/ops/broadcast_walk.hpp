// The NumPy broadcast of up to three contiguous inputs onto an output (spec/ops/elementwise.md
// section 2) as rows for the mask and selection overrides (op_where.cpp, op_compare.cpp): output
// axes of extent 1 dropped, neighbouring axes merged where every input walks them as one run (or
// broadcasts both), so a same-shape case is one row and a scalar or row broadcast is a few long
// rows. Each input gets element strides, 0 on the axes it broadcasts. Shapes were checked by the
// reference's infer(); plan_broadcast() still refuses what does not fit (the caller then runs the
// reference kernel).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "onemodel/shape.hpp"
#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

struct BroadcastWalk {
  static constexpr std::size_t kMaxInputs = 3;
  int rank = 0;  // after dropping and merging; 0 = one element
  std::size_t inputs = 0;
  std::array<std::int64_t, kMaxRank> extent{};
  std::array<std::array<std::int64_t, kMaxRank>, kMaxInputs> stride{};

  std::int64_t inner() const noexcept { return rank == 0 ? 1 : extent[static_cast<std::size_t>(rank - 1)]; }
  std::int64_t inner_stride(std::size_t k) const noexcept {
    return rank == 0 ? 0 : stride[k][static_cast<std::size_t>(rank - 1)];
  }
  std::size_t rows() const noexcept {
    std::size_t r = 1;
    for (int d = 0; d + 1 < rank; ++d) r *= static_cast<std::size_t>(extent[static_cast<std::size_t>(d)]);
    return r;
  }
};

// False when an input does not broadcast onto `out` (rank above it, an extent neither equal nor 1).
inline bool plan_broadcast(const Shape& out, const Shape* const* ins, std::size_t count, BroadcastWalk& w) {
  if (count > BroadcastWalk::kMaxInputs) return false;
  const int rank = out.rank();
  w.inputs = count;
  std::array<std::array<std::int64_t, kMaxRank>, BroadcastWalk::kMaxInputs> full{};
  for (std::size_t k = 0; k < count; ++k) {
    const Shape& in = *ins[k];
    if (in.rank() > rank) return false;
    std::int64_t step = 1;
    for (int d = rank - 1, e = in.rank() - 1; d >= 0; --d, --e) {
      const std::int64_t n = e >= 0 ? in[e] : 1;
      if (n != out[d] && n != 1) return false;
      full[k][static_cast<std::size_t>(d)] = n == 1 ? 0 : step;
      step *= n;
    }
  }
  int r = 0;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t n = out[d];
    if (n == 1) continue;
    bool merge = r > 0;
    for (std::size_t k = 0; k < count && merge; ++k) {
      merge = w.stride[k][static_cast<std::size_t>(r - 1)] == full[k][static_cast<std::size_t>(d)] * n;
    }
    if (merge) {
      w.extent[static_cast<std::size_t>(r - 1)] *= n;
      for (std::size_t k = 0; k < count; ++k) w.stride[k][static_cast<std::size_t>(r - 1)] = full[k][static_cast<std::size_t>(d)];
      continue;
    }
    w.extent[static_cast<std::size_t>(r)] = n;
    for (std::size_t k = 0; k < count; ++k) w.stride[k][static_cast<std::size_t>(r)] = full[k][static_cast<std::size_t>(d)];
    ++r;
  }
  w.rank = r;
  return true;
}

// Calls row(out_offset, offsets) for rows [first, last) (row = every axis but the inner one), each
// offset in elements; the row has w.inner() elements, input k advancing w.inner_stride(k) a step.
template <class Row>
void walk_rows(const BroadcastWalk& w, std::size_t first, std::size_t last, Row&& row) {
  std::array<std::int64_t, kMaxRank> index{};
  std::array<std::int64_t, BroadcastWalk::kMaxInputs> at{};
  std::size_t rest = first;
  for (int d = w.rank - 2; d >= 0; --d) {
    const auto k = static_cast<std::size_t>(d);
    index[k] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(w.extent[k]));
    rest /= static_cast<std::size_t>(w.extent[k]);
    for (std::size_t i = 0; i < w.inputs; ++i) at[i] += index[k] * w.stride[i][k];
  }
  const auto inner = static_cast<std::size_t>(w.inner());
  for (std::size_t r = first; r < last; ++r) {
    row(r * inner, at);
    for (int d = w.rank - 2; d >= 0; --d) {
      const auto k = static_cast<std::size_t>(d);
      for (std::size_t i = 0; i < w.inputs; ++i) at[i] += w.stride[i][k];
      if (++index[k] < w.extent[k]) break;
      for (std::size_t i = 0; i < w.inputs; ++i) at[i] -= index[k] * w.stride[i][k];
      index[k] = 0;
    }
  }
}

// Calls run(out_offset, offsets, count) over runs of the output covering it once, in pieces of
// about kPieceElements outputs (a function of the shape only) shared by the pool: rows of a few
// elements are grouped, one long row (the same-shape case) is cut.
template <class Run>
void for_each_run(const KernelContext& context, const BroadcastWalk& w, double ns_per_element, Run&& run) {
  constexpr std::size_t kPieceElements = 32 * 1024;
  const auto inner = static_cast<std::size_t>(w.inner());
  const std::size_t rows = w.rows();
  const double estimate = ns_per_element * static_cast<double>(rows * inner);
  if (rows == 1) {
    const std::size_t pieces = (inner + kPieceElements - 1) / kPieceElements;
    context.parallel_for(pieces, estimate, [&](std::size_t piece) {
      const std::size_t lo = piece * kPieceElements;
      std::array<std::int64_t, BroadcastWalk::kMaxInputs> at{};
      for (std::size_t i = 0; i < w.inputs; ++i) at[i] = static_cast<std::int64_t>(lo) * w.inner_stride(i);
      run(lo, at, inner - lo < kPieceElements ? inner - lo : kPieceElements);
    });
    return;
  }
  const std::size_t rows_per_piece = inner >= kPieceElements ? 1 : kPieceElements / inner;
  const std::size_t pieces = (rows + rows_per_piece - 1) / rows_per_piece;
  context.parallel_for(pieces, estimate, [&](std::size_t piece) {
    const std::size_t first = piece * rows_per_piece;
    const std::size_t last = first + rows_per_piece < rows ? first + rows_per_piece : rows;
    walk_rows(w, first, last, [&](std::size_t out, const std::array<std::int64_t, BroadcastWalk::kMaxInputs>& at) {
      run(out, at, inner);
    });
  });
}

}  // namespace onemodel::opt
