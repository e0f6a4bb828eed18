// Helpers shared by the normalisation and softmax operators (spec/ops/norms.md sections 3-5):
// axis normalisation, the rows x cols view of a tensor, canonical NaN stores, and the per-row
// mean and inverse standard deviation of steps 1-3.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"

namespace onemodel::norms {

// spec/ops/norms.md section 1: an axis in [-rank, rank), counted from the end when negative;
// outside that range the node is invalid. `allow_rank` admits axis == rank (Softmax-1..12 flattens
// at rank, giving one column).
int normalize_axis(const NodeInfo& node, std::int64_t axis, int rank, bool allow_rank = false);

// Product of extents [from, to) in 64-bit arithmetic (the shape limits keep it below 2^31).
std::int64_t extent_product(const Shape& shape, int from, int to) noexcept;

// spec/exact-mode.md rule 4 (spec/ops/norms.md section 1): every stored NaN is canonical.
inline float store(float v) noexcept { return canonical_nan_f32(v); }
inline double store(double v) noexcept {
  if (!std::isnan(v)) return v;
  const std::uint64_t bits = 0x7FF8000000000000ull;
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// spec/ops/norms.md section 3, steps 1-3, for one row of `cols` float32 values:
//   mean = Sum16(x) / n            (rms: mean = +0)
//   v    = Sum16((x - mean)^2) / n (difference and square rounded separately)
//   inv  = 1 / sqrt(v + epsilon)
struct RowMoments {
  float mean = 0.0f;
  float inv = 0.0f;
};
RowMoments row_moments(const float* x, std::int64_t cols, float epsilon, bool rms) noexcept;

// Step 4 for one element: (((x - mean) * inv) * scale) + bias, four rounded operations; without
// a bias the addition is skipped.
inline float normalize_element(float x, const RowMoments& m, float scale) noexcept {
  const float centred = x - m.mean;
  const float scaled = centred * m.inv;
  return scaled * scale;
}
inline float normalize_element(float x, const RowMoments& m, float scale, float bias) noexcept {
  return normalize_element(x, m, scale) + bias;
}

}  // namespace onemodel::norms

namespace onemodel::norms {

// spec/ops/norms.md section 3: Scale and B broadcast to the normalized dimensions [axis, rank) of
// `x` (right-aligned, missing leading dimensions are ones). Checks the shape (InvalidModel naming
// the node) and returns the expanded values, one per column of the row.
void check_broadcast_to_normalized(const NodeInfo& node, const Shape& param, const Shape& x, int axis,
                                   const char* what);
std::vector<float> expand_to_normalized(const Tensor& param, const Shape& x, int axis);

}  // namespace onemodel::norms
