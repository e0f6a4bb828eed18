// Det (opsets 11+): spec/ops/losses.md section 9. Input [*, M, M], output [*]: for each matrix,
// Gaussian elimination with partial pivoting in a stated order; det = the product of the pivots
// taken in order, negated once per row swap. float32 and float64. Exact: only + - * / in the order
// of section 9 (conformance.md lists Det as passing in exact mode).
#include <cmath>
#include <vector>

#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

// Section 9 for one m x m matrix `a` (row-major, overwritten).
template <class T>
T determinant(std::vector<T>& a, std::int64_t m) {
  T det = T(1);
  bool negate = false;
  for (std::int64_t k = 0; k < m; ++k) {
    // Pivot: the first row r >= k with the largest |a[r][k]| (NaN never wins).
    std::int64_t pivot = k;
    for (std::int64_t r = k + 1; r < m; ++r) {
      if (std::fabs(a[r * m + k]) > std::fabs(a[pivot * m + k])) pivot = r;
    }
    if (a[pivot * m + k] == T(0)) return T(0);  // singular: +0
    if (pivot != k) {
      for (std::int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[pivot * m + j]);
      negate = !negate;
    }
    const T p = a[k * m + k];
    det = det * p;
    for (std::int64_t r = k + 1; r < m; ++r) {
      const T factor = a[r * m + k] / p;
      for (std::int64_t j = k + 1; j < m; ++j) a[r * m + j] = a[r * m + j] - factor * a[k * m + j];
    }
  }
  return negate ? -det : det;
}

class Det final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2 || x[x.rank() - 1] != x[x.rank() - 2]) {
      context.node().fail_invalid("input must be [*, M, M], not " + x.to_string());
    }
    std::vector<std::int64_t> out;
    for (int d = 0; d < x.rank() - 2; ++d) out.push_back(x[d]);
    context.set_output(0, context.input_type(0), Shape(std::span<const std::int64_t>(out)));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) compute<double>(context);
    else compute<float>(context);
  }

 private:
  template <class T>
  void compute(RunContext& context) const {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const std::int64_t m = shape[shape.rank() - 1];
    const std::int64_t count = norms::extent_product(shape, 0, shape.rank() - 2);
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    std::vector<T> a(static_cast<std::size_t>(m * m));
    for (std::int64_t b = 0; b < count; ++b) {
      for (std::int64_t e = 0; e < m * m; ++e) a[static_cast<std::size_t>(e)] = in[b * m * m + e];
      out[b] = norms::store(determinant<T>(a, m));
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_det(const NodeInfo&) { return std::make_unique<Det>(); }

}  // namespace onemodel
