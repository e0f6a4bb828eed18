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

// spec/ops/norms.md section 3, steps 1-3, for one row of `cols` values of type T (float32, or
// float64 for InstanceNormalization, section 4: the same steps in binary64):
//   mean = Sum16(x) / n            (rms: mean = +0)
//   v    = Sum16((x - mean)^2) / n (difference and square rounded separately)
//   inv  = 1 / sqrt(v + epsilon)
template <class T>
struct RowMomentsOf {
  T mean = T{0};
  T inv = T{0};
};
using RowMoments = RowMomentsOf<float>;
RowMoments row_moments(const float* x, std::int64_t cols, float epsilon, bool rms) noexcept;
RowMomentsOf<double> row_moments(const double* x, std::int64_t cols, double epsilon, bool rms) noexcept;

// Step 4 for one element: (((x - mean) * inv) * scale) + bias, four rounded operations; without
// a bias the addition is skipped.
template <class T>
T normalize_element(T x, const RowMomentsOf<T>& m, T scale) noexcept {
  const T centred = x - m.mean;
  const T scaled = centred * m.inv;
  return scaled * scale;
}
template <class T>
T normalize_element(T x, const RowMomentsOf<T>& m, T scale, T bias) noexcept {
  return normalize_element(x, m, scale) + bias;
}

}  // namespace onemodel::norms

namespace onemodel::norms {

// spec/ops/norms.md section 3: Scale and B broadcast unidirectionally to the whole of `x` (the ONNX
// LayerNormalization and RMSNormalization text: "unidirectional broadcastable to tensor X"):
// rank at most x's, each right-aligned extent equal to x's or 1. Otherwise InvalidModel naming the
// node, the parameter and both shapes.
void check_broadcast_to_input(const NodeInfo& node, const Shape& param, const Shape& x, const char* what);

// A parameter expanded to the rows x cols view of x at `axis`: value (r, j) is
// values[r * row_stride + j]. row_stride is 0 when the parameter is the same for every row (its
// extents before `axis` are all 1), so only one row of cols values is stored; else it is cols and
// every row is stored.
template <class T>
struct ExpandedParameterOf {
  std::vector<T> values;
  std::int64_t row_stride = 0;
};
using ExpandedParameter = ExpandedParameterOf<float>;
// Whether a parameter broadcasting to x differs between rows: an extent other than 1 among the
// dimensions of x before `axis`.
bool varies_across_rows(const Shape& param, const Shape& x, int axis) noexcept;
// T is the parameter's element type: float or double.
template <class T>
ExpandedParameterOf<T> expand_parameter_of(const Tensor& param, const Shape& x, int axis);
inline ExpandedParameter expand_parameter(const Tensor& param, const Shape& x, int axis) {
  return expand_parameter_of<float>(param, x, axis);
}

// spec/ops/norms.md section 9, float64 with stash_type 1 (the ONNX function bodies of
// LayerNormalization 17, RMSNormalization 23 and GroupNormalization 21 cast X to the stash type,
// float32, for stage one): the row rounded to float32, steps 1-3 of section 3 in float32, and
// n = (x - mean) * inv in float32; n is then widened exactly and steps 4's scale and bias are
// applied in binary64 by the caller. Writes n[0..cols) and returns the float32 moments.
RowMoments stage_one_in_float32(const double* x, std::int64_t cols, float epsilon, bool rms, std::vector<float>& row,
                                std::vector<float>& n);

// The stash_type rule for float64 inputs (section 9): 1 (float32) is served; another value is
// Unsupported naming the node. float32 inputs ignore the attribute (section 1).
void check_f64_stash_type(const NodeInfo& node, std::int64_t stash_type);

}  // namespace onemodel::norms
