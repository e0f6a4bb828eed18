// spec/ops/norms.md sections 1 and 3: axes, row geometry and the row moments.
#include "reference/ops/norm_helpers.hpp"

#include "reference/ops/canonical_sum.hpp"

namespace onemodel::norms {

int normalize_axis(const NodeInfo& node, std::int64_t axis, int rank, bool allow_rank) {
  const std::int64_t upper = allow_rank ? rank + 1 : rank;
  if (axis < -static_cast<std::int64_t>(rank) || axis >= upper) {
    node.fail_invalid("axis " + std::to_string(axis) + " outside [" + std::to_string(-rank) + ", " +
                      std::to_string(upper) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::int64_t extent_product(const Shape& shape, int from, int to) noexcept {
  std::int64_t p = 1;
  for (int d = from; d < to; ++d) p *= shape[d];
  return p;
}

namespace {

// One definition for both widths: every operation is rounded to T (spec/ops/norms.md section 3).
template <class T>
RowMomentsOf<T> moments_of(const T* x, std::int64_t cols, T epsilon, bool rms) noexcept {
  const T n = static_cast<T>(cols);
  RowMomentsOf<T> m;
  if (!rms) {
    CanonicalSum16<T> sum;
    for (std::int64_t j = 0; j < cols; ++j) sum.add(x[j]);
    m.mean = sum.result() / n;
  }
  CanonicalSum16<T> squares;
  for (std::int64_t j = 0; j < cols; ++j) {
    const T d = x[j] - m.mean;
    const T sq = d * d;
    squares.add(sq);
  }
  const T v = squares.result() / n;
  m.inv = T{1} / std::sqrt(v + epsilon);
  return m;
}

}  // namespace

RowMoments row_moments(const float* x, std::int64_t cols, float epsilon, bool rms) noexcept {
  return moments_of(x, cols, epsilon, rms);
}
RowMomentsOf<double> row_moments(const double* x, std::int64_t cols, double epsilon, bool rms) noexcept {
  return moments_of(x, cols, epsilon, rms);
}

}  // namespace onemodel::norms

namespace onemodel::norms {

void check_broadcast_to_input(const NodeInfo& node, const Shape& param, const Shape& x, const char* what) {
  bool ok = param.rank() <= x.rank();
  for (int d = 0; ok && d < param.rank(); ++d) {
    const std::int32_t p = param[param.rank() - 1 - d];
    const std::int32_t e = x[x.rank() - 1 - d];
    ok = p == e || p == 1;
  }
  if (!ok) {
    node.fail_invalid(std::string(what) + " of shape " + param.to_string() +
                      " does not broadcast (unidirectionally) to the input's shape " + x.to_string());
  }
}

bool varies_across_rows(const Shape& param, const Shape& x, int axis) noexcept {
  // Right-aligned: parameter dimension d sits on x dimension d + (x.rank() - param.rank()).
  const int shift = x.rank() - param.rank();
  for (int d = 0; d < param.rank(); ++d) {
    if (d + shift < axis && param[d] != 1) return true;
  }
  return false;
}

template <class T>
ExpandedParameterOf<T> expand_parameter_of(const Tensor& param, const Shape& x, int axis) {
  const Tensor values = param.contiguous();
  const std::span<const T> p = values.data<T>();
  const Shape& ps = values.shape();
  ExpandedParameterOf<T> out;
  // Expand over x's dimensions [from, rank): all of them when the value depends on the row, else
  // only the normalized ones (one row serves every row).
  const int from = varies_across_rows(ps, x, axis) ? 0 : axis;
  const std::int64_t cols = extent_product(x, axis, x.rank());
  out.row_stride = from == 0 ? cols : 0;
  const std::int64_t count = extent_product(x, from, x.rank());
  out.values.resize(static_cast<std::size_t>(count));
  const int shift = x.rank() - ps.rank();
  // Walk x's index over [from, rank) in row-major order; the parameter's index drops the leading
  // dimensions it lacks and pins its extent-1 dimensions to 0.
  std::vector<std::int64_t> index(static_cast<std::size_t>(x.rank()), 0);
  for (std::int64_t k = 0; k < count; ++k) {
    std::int64_t offset = 0;
    for (int d = 0; d < ps.rank(); ++d) {
      const std::int64_t i = ps[d] == 1 ? 0 : index[static_cast<std::size_t>(d + shift)];
      offset = offset * ps[d] + i;
    }
    out.values[static_cast<std::size_t>(k)] = p[static_cast<std::size_t>(offset)];
    for (int d = x.rank() - 1; d >= from; --d) {
      if (++index[static_cast<std::size_t>(d)] < x[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  return out;
}

template ExpandedParameterOf<float> expand_parameter_of<float>(const Tensor&, const Shape&, int);
template ExpandedParameterOf<double> expand_parameter_of<double>(const Tensor&, const Shape&, int);

RowMoments stage_one_in_float32(const double* x, std::int64_t cols, float epsilon, bool rms, std::vector<float>& row,
                                std::vector<float>& n) {
  row.resize(static_cast<std::size_t>(cols));
  n.resize(static_cast<std::size_t>(cols));
  // Cast(X, to = FLOAT): round to nearest even, one correctly rounded conversion per element.
  for (std::int64_t j = 0; j < cols; ++j) row[static_cast<std::size_t>(j)] = static_cast<float>(x[j]);
  const RowMoments m = row_moments(row.data(), cols, epsilon, rms);
  for (std::int64_t j = 0; j < cols; ++j) {
    const float centred = row[static_cast<std::size_t>(j)] - m.mean;
    n[static_cast<std::size_t>(j)] = centred * m.inv;
  }
  return m;
}

void check_f64_stash_type(const NodeInfo& node, std::int64_t stash_type) {
  if (stash_type != 1) {
    node.fail_unsupported("stash_type " + std::to_string(stash_type) +
                          " with a float64 input (only 1, float32, is served; spec/ops/norms.md section 9)");
  }
}

}  // namespace onemodel::norms
